"""Request text in, reply text out: the one path every front end takes.

Keeps one Session per topic and serialises commands per topic; front ends only move text. A front end that
already runs one request at a time per topic (the daemon's queues) calls `run_serialised` and skips the lock.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

from stringsh.commands.context import Context
from stringsh.commands.table import COMMANDS, CommandSpec, Handler
from stringsh.errors import StringError
from stringsh.protocol.request import Invocation, Request, parse_invocation, parse_request, reply_header
from stringsh.protocol.response import Reply, Result, format_error_item, format_reply
from stringsh.protocol.topics import parse_topic
from stringsh.session import Session
from stringsh.workspace import RequestContext, Workspace

if TYPE_CHECKING:
    from stringsh.documents.state import DocumentState
    from stringsh.protocol.operator_model import BlockAnswerer
    from stringsh.protocol.stream import StreamItem
    from stringsh.workspace import Client


#: How a front end words a refusal's hint (a dialect's own terms, `errors.StringError.worded`); None: String
#: Commands' own text.
HintWords = Callable[[StringError], "str | None"]


def error_text(exc: StringError, hints: HintWords | None = None) -> str:
    """The refusal's message and hint as its reply shows them: the hint worded by `hints` when a front end gives
    its own wording (MCP's command tools), else String Commands'."""
    if hints is None:
        return exc.text
    advice = hints(exc)
    return f"{exc.message}\n{advice}" if advice else exc.message


def internal_error_text(exc: BaseException) -> str:
    reason = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {reason}" if reason else type(exc).__name__


class Dispatcher:
    """Owns the workspace root, the command table and the sessions; `execute` never raises."""

    def __init__(
        self,
        root: str | os.PathLike[str] | None = None,
        *,
        policy_file: Path | None = None,
        commands: Mapping[str, CommandSpec] = COMMANDS,
        no_sandbox: bool = False,
        client: Client | None = None,
        blocks: BlockAnswerer | None = None,
    ) -> None:
        """`client`: who this dispatcher is in the journal (workspace/clients.py; default: its own process).
        `blocks`: what answers an OPERATOR_CMD block sent as a request (the operator dialect, a front end above
        this layer, which cli.py passes in); without one such a request is refused."""
        self.root = Path(root or os.getcwd()).resolve()
        self.policy_file = policy_file
        self.no_sandbox = no_sandbox  # `--no-sandbox`: the user turns the shell sandbox off
        self.client = client
        self.blocks = blocks
        self.commands = commands
        self.sessions: dict[str, Session] = {}
        self._sessions_lock = threading.Lock()
        self._topic_locks: dict[str, threading.Lock] = {}
        self._workspace: Workspace | None = None
        self._documents: DocumentState | None = None
        self._raw = frozenset(name for name, spec in commands.items() if spec.raw)
        self._handlers: dict[str, Handler] = {}  # resolved on first use: their modules load only then
        #: Start each new topic's shell in the background when the topic is made (the daemon, MCP: agents'
        #: topics, whose first command would otherwise wait for the sandbox to start).
        self.warm_shells = False
        #: Watch open documents for changes made outside (off for `-c`, which ends before one could matter:
        #: importing watchdog and starting its observer cost more than the request; staleness is a stat and a hash).
        self.watch_files = True

    def check(self) -> None:
        """Fail at start-up, not on the first request, when the workspace or its policy is unusable."""
        self.workspace  # noqa: B018 - loading it validates the policy

    @property
    def workspace(self) -> Workspace:
        """The confined engine every file command goes through; loading it checks the policy file."""
        workspace = self._workspace
        if workspace is not None:
            return workspace
        with self._sessions_lock:
            if self._workspace is None:
                self._workspace = Workspace.load(self.root, self.policy_file, no_sandbox=self.no_sandbox,
                                                 client=self.client)
                from stringsh import serving

                serving.started()
            return self._workspace

    @property
    def documents(self) -> DocumentState:
        """The workspace's index cache and file watcher, shared by every topic; made on first use."""
        workspace = self.workspace  # outside the lock: loading the workspace takes it too
        with self._sessions_lock:
            if self._documents is None:
                from stringsh.documents.state import DocumentState

                self._documents = DocumentState(workspace, watching=self.watch_files)
            return self._documents

    def session(self, topic: str | None = None) -> Session:
        """The topic's session, created on first use; an invalid topic name is INVALID_TARGET."""
        name, kind = parse_topic(topic)
        session = self.sessions.get(name)
        if session is not None:
            return session
        with self._sessions_lock:
            made = self.sessions.get(name)
            if made is None:
                self._topic_locks[name] = threading.Lock()
                made = self.sessions[name] = Session(topic=name, kind=kind)
                if self.warm_shells:
                    threading.Thread(target=self._warm, args=(made,), name="stringsh-warm-shell", daemon=True).start()
            return made

    def _warm(self, session: Session) -> None:
        workspace = self._workspace  # none loaded (or closed already): the first command starts the shell
        if workspace is not None and not session.ended:
            workspace.warm_shell(session)

    def topic_sessions(self) -> list[Session]:
        """Every topic this dispatcher (one client: a daemon, a REPL, a script) has, oldest first; for /topics."""
        with self._sessions_lock:
            return list(self.sessions.values())

    def end_topic(self, topic: str) -> None:
        """Forget a topic whose client went away (an MCP session ended): its shell stopped, its state dropped.
        Waits for a request running in it; a later request in the same name starts a fresh topic."""
        lock = self._topic_locks.get(topic)
        if lock is None:
            return
        with lock, self._sessions_lock:
            session = self.sessions.pop(topic, None)
            self._topic_locks.pop(topic, None)
        if session is not None:
            session.ended = True  # a shell still warming up is closed by close_shell, or never starts
            session.close_shell()

    def execute(self, text: str, topic: str | None = None, hints: HintWords | None = None) -> Reply:
        """Run one request (header plus optional body) in a topic and format its reply; `hints` words its
        refusal's hint (a front end speaking another dialect, HintWords)."""
        try:
            request = parse_request(text)
        except StringError as exc:
            header, request_id = reply_header(text)
            self._refused(header, topic or "main", exc.code)
            return format_reply(header, request_id, error=(exc.code, error_text(exc, hints)), topic=topic or "main",
                                mask=self._mask())
        return self.execute_request(request, topic, hints)

    def answer(self, item: StreamItem) -> Reply:
        """Reply to one item of a line stream: run it, or report why it could not be read."""
        if item.error:
            self._refused(reply_header(item.text)[0], item.topic or "main", item.error[0])
            return format_error_item(item.text, item.error, item.topic or "main", self._mask())
        if item.request is not None:
            return self.execute_request(item.request, item.topic)
        return self.execute(item.text, item.topic)

    def execute_request(self, request: Request, topic: str | None = None, hints: HintWords | None = None) -> Reply:
        """Run a parsed request, one at a time per topic, whichever thread calls."""
        try:
            session = self.session(topic)
        except StringError as exc:
            self._refused(request.header, topic or "main", exc.code)
            return format_reply(request.header, request.id, error=(exc.code, error_text(exc, hints)),
                                topic=topic or "main", mask=self._mask())
        with self._topic_locks[session.topic]:
            return self.run_serialised(request, session, hints)

    def run_serialised(self, request: Request, session: Session, hints: HintWords | None = None) -> Reply:
        """Run a parsed request in a session without taking its topic's lock: for a caller that already runs
        one request at a time per topic. Every request is one request of the engine (workspace/context.py),
        recorded once in the audit log, refused or not."""
        try:
            invocation = self._invocation(request, session)
        except StringError as exc:
            self._refused(request.header, session.topic, exc.code)
            return format_reply(request.header, request.id, error=(exc.code, error_text(exc, hints)),
                                topic=session.topic, mask=self._mask())
        if invocation.name == "operator-block":  # each block is a request of the operator dialect (its own record)
            return self._reply(request, session, invocation, None, hints)
        with self._request(_op_name(invocation), session.topic, request.header) as ctx:
            return self._reply(request, session, invocation, ctx, hints)

    def _request(self, op: str, topic: str, command: str | None) -> AbstractContextManager[RequestContext]:
        """The engine's request for one String Command; nothing to record to when the workspace cannot load (the
        command then says why, or needs no workspace: /help)."""
        try:
            workspace = self.workspace
        except StringError:
            return contextlib.nullcontext(RequestContext(dialect="string", op=op, topic=topic, client=""))
        return workspace.request("string", op, topic=topic, command=command)

    def _refused(self, header: str, topic: str, code: str) -> None:
        """A request that could not be read or routed (bad quoting, an unknown command or topic) is one request
        too, recorded by its first word only: its arguments may hold a value to hide."""
        word = (header.split(maxsplit=1) or [""])[0][:80]
        if self._workspace is not None:
            word = self._workspace.redact(word)  # a pasted token is a first word too
        with self._request(word, topic, None) as ctx:
            ctx.fail(code)

    def _reply(self, request: Request, session: Session, invocation: Invocation,
               ctx: RequestContext | None, hints: HintWords | None = None) -> Reply:
        """Run the command and format its reply; `ctx` (the request) learns how it failed."""
        try:
            result = self._run(invocation, session, request)
        except StringError as exc:
            if ctx is not None:
                ctx.fail(exc.code)
            return format_reply(request.header, request.id, error=(exc.code, error_text(exc, hints)),
                                topic=session.topic, mask=self._mask())
        except Exception as exc:
            if ctx is not None:
                ctx.fail(f"INTERNAL_ERROR:{type(exc).__name__}")  # the type only: its text may quote a file
            return format_reply(
                request.header, request.id, error=("INTERNAL_ERROR", internal_error_text(exc)), topic=session.topic,
                mask=self._mask(),
            )
        if ctx is not None and not result.ok:
            ctx.fail(result.code or "ERROR")
        return format_reply(request.header, request.id, result, topic=session.topic, mask=self._mask())

    def records_after_reply(self) -> AbstractContextManager[None]:
        """Send a reply inside this block and its request's audit record is written after it (Workspace); nothing
        to defer when the workspace cannot load."""
        try:
            return self.workspace.records_after_reply()
        except StringError:
            return contextlib.nullcontext()

    def on_wait(self, hook: Callable[[], None]) -> AbstractContextManager[None]:
        """Requests run in this block on this thread call `hook` when about to wait for other writers
        (Workspace.on_wait); nothing when the workspace cannot load."""
        try:
            return self.workspace.on_wait(hook)
        except StringError:
            return contextlib.nullcontext()

    def _mask(self) -> Callable[[str], str] | None:
        """What masks this reply: the workspace's redactor (every request loads the workspace to be recorded;
        none when it could not load, and then the reply holds nothing of it)."""
        engine = self._workspace
        return engine.redact_lines if engine is not None else None

    def _invocation(self, request: Request, session: Session) -> Invocation:
        if session.kind == "bash" or session.bash_mode:  # every line goes to the shell, raw
            invocation = Invocation(name="bash-line", arg_text=request.header, body=request.body)
        else:
            try:
                invocation = parse_invocation(request, session.variables, raw_names=self._raw)
            except StringError as exc:
                raise self._with_command_suggestion(exc, request.header) from None
        if invocation.name not in self.commands:
            from stringsh.suggest import did_you_mean, with_suggestion  # a refusal's hint only

            raise StringError(
                "COMMAND_UNSUPPORTED",
                f"Unknown command: /{invocation.name}",
                with_suggestion("Use /help to see available commands.",
                                did_you_mean(invocation.name, self._suggestable(), "/{}")),
            )
        return invocation

    def _suggestable(self) -> list[str]:
        """The commands a typo may be taken for: the listed ones (`/help`), never `!` or the internal names."""
        return [name for name, spec in self.commands.items() if not spec.hidden and name[:1].isalpha()]

    def _with_command_suggestion(self, exc: StringError, header: str) -> StringError:
        """A line without its `/` (`ls`, `opne x`): name the command it most likely meant, with the `/`."""
        word = header.strip().split(maxsplit=1)[0].lower() if header.strip() else ""
        if exc.code != "COMMAND_UNSUPPORTED" or not word or word.startswith("/"):
            return exc
        from stringsh.suggest import closest, with_suggestion  # a refusal's hint only

        rest = header.strip()[len(word):]
        rest = rest if len(rest) <= 40 and "\n" not in rest else ""
        name = word if word in self._suggestable() else closest(word, self._suggestable())
        if name is None:
            return exc
        return StringError(exc.code, exc.message, with_suggestion(exc.hint, f"Did you mean /{name}{rest}?"))

    def _run(self, invocation: Invocation, session: Session, request: Request) -> Result:
        handler = self._handlers.get(invocation.name)
        if handler is None:
            handler = self._handlers[invocation.name] = self.commands[invocation.name].handler()
        return handler(Context(self, session, invocation, request))

    def close(self) -> None:
        """Stop every topic's shell; called when a front end exits."""
        for session in list(self.sessions.values()):
            session.ended = True  # a shell still to warm up never starts
            session.close_shell()
        if self._workspace is not None:
            self._workspace.close()
            self._workspace = None
        if self._documents is not None:
            self._documents.close()  # stops the watcher's observer thread


def _op_name(invocation: Invocation) -> str:
    """The request in its audit record: `/open`, `!` for a shell line, `bash-line` in a bash topic."""
    name = invocation.name
    return name if name in ("!", "bash-line") else f"/{name}"
