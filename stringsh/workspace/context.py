"""The request a call belongs to: who asked (client, agent), in which dialect, in which topic, for what.

Every front end opens one request per thing its user asked (a String Command line, an OPERATOR_CMD block, a JSON
tool call, an MCP tool call) with `Workspace.request(...)`. The context lives in a `contextvars` variable, so it
follows the request onto whichever thread runs it and never leaks into another request. The engine takes
attribution from it alone: the journal's front end and command line (what `/changes` shows), and the request's
one audit record, which the engine's operations add their names, paths, change ids and outcomes to instead of
writing records of their own. A call made outside any request (the library API) is recorded per operation.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar


class RequestContext:
    """One request's attribution and what its operations did; a plain class (made per request, start-up counts)."""

    __slots__ = ("agent", "asked", "changes", "client", "command", "dialect", "op", "ops", "outcome", "paths",
                 "started", "summary", "topic")

    def __init__(self, *, dialect: str, op: str | None, topic: str, client: str, command: str | None = None,
                 agent: str | None = None, asked: tuple[str, ...] = ()) -> None:
        #: `string`, `operator`, `tools` or `mcp`: the journal's and the audit's front end.
        self.dialect = dialect
        #: What the audit record calls the request (`/open`, `tools.edit`, `operator.fs.write`, `mcp.edit_file`).
        self.op = op
        self.topic = topic
        #: Whose undo history a change joins (a process, a daemon; later a named client).
        self.client = client
        #: The request as `/changes` names its change sets (a command line, a tool and its paths; never a payload).
        self.command = command
        #: The client program's own name when it gave one (an MCP client's `clientInfo`, an operator agent).
        self.agent = agent
        #: The paths the request named, as given: its record's paths when no operation got as far as naming one.
        self.asked = list(asked)
        self.started = time.perf_counter()
        #: What the engine's operations did, in order: their names, paths and change ids, no contents.
        self.ops: list[str] = []
        self.paths: list[str] = []
        self.changes: list[int] = []
        #: An operation's own summary for the record (a shell command's first line, a grep query), masked.
        self.summary: str | None = None
        #: The request's outcome when it ends without raising: `ok`, or a code the front end or an operation set.
        self.outcome: str | None = None

    def note(self, op: str, paths: list[str], change: int | None, summary: str | None,
             outcome: str | None = None) -> None:
        """An engine operation ran inside this request (called by the engine, never by a front end). `outcome`:
        the operation ended without raising but failed (a shell command's `EXIT_1`); a raised error is the
        request's to record, since a command may catch it and go on."""
        if not self.ops or self.ops[-1] != op:
            self.ops.append(op)
        self.paths.extend(path for path in paths if path not in self.paths)
        if change is not None:
            self.changes.append(change)
        if summary is not None and self.summary is None:
            self.summary = summary
        if outcome is not None:
            self.outcome = outcome

    def fail(self, outcome: str) -> None:
        """The request failed with `outcome` (an error code) even though no operation raised."""
        self.outcome = outcome


CURRENT: ContextVar[RequestContext | None] = ContextVar("stringsh_request", default=None)
#: A request as it ended, what its audit record is made of (staterecords.py): time, seconds taken, topic, dialect,
#: client, op, ops, paths, outcome, changes, summary, agent.
Ended = tuple[float, float, str, str, str, str | None, list[str], list[str], str | None, list[int], str | None,
              str | None]
#: Requests that ended while their front end was still sending the reply (state.records_after_reply): their records
#: are made and written after it.
DEFERRED: ContextVar[list[Ended] | None] = ContextVar("stringsh_deferred_records", default=None)


#: What the front end running this thread's requests does when one is about to wait for other writers (an in-place
#: edit joining group commit: the batch ahead, the writers its batch gathers, the syncs; groupcommit.py; set with
#: Workspace.on_wait): a daemon that reads and runs requests on one thread lets another thread read on, so the next
#: writer's request is read, and can join a batch, while this one waits. A front end that sets nothing is told
#: nothing.
BEFORE_WAIT: ContextVar[Callable[[], None] | None] = ContextVar("stringsh_before_wait", default=None)


def about_to_wait() -> None:
    hook = BEFORE_WAIT.get()
    if hook is not None:
        hook()


@contextmanager
def on_wait(hook: Callable[[], None]) -> Iterator[None]:
    """Requests run in this block (on this thread) call `hook` when about to wait; it may be called more than once."""
    token = BEFORE_WAIT.set(hook)
    try:
        yield
    finally:
        BEFORE_WAIT.reset(token)


def current() -> RequestContext | None:
    """The request this call belongs to; None for a library call made outside any request."""
    return CURRENT.get()


#: The codes the confiner refuses a path with: a request refused so names the path in its record.
PATH_REFUSALS = frozenset({"INVALID_PATH", "FILE_NOT_ALLOWED", "SECRET_DENIED", "NOT_PERMITTED"})


def refused_path(path: str, code: str) -> None:
    """The confiner refused `path`: the request's record names it, as asked, in every dialect alike (a String
    Command refused before any operation ran would otherwise name nothing)."""
    ctx = CURRENT.get()
    if ctx is not None and code in PATH_REFUSALS and isinstance(path, str) and path[:200] not in ctx.asked:
        ctx.asked.append(path[:200])
