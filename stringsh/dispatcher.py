"""Request text in, reply text out: the one path every front end takes.

Keeps one Session per topic and serialises commands per topic; front ends only move text. A front end that
already runs one request at a time per topic (the daemon's queues) calls `run_serialised` and skips the lock.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from stringsh.commands.context import Context
from stringsh.commands.table import COMMANDS, CommandSpec, Handler
from stringsh.errors import StringError
from stringsh.protocol.request import Invocation, Request, parse_invocation, parse_request, reply_header
from stringsh.protocol.response import Reply, Result, format_error_item, format_reply
from stringsh.protocol.topics import parse_topic
from stringsh.session import Session
from stringsh.workspace import Workspace

if TYPE_CHECKING:
    from stringsh.documents.state import DocumentState
    from stringsh.protocol.stream import StreamItem


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
    ) -> None:
        self.root = Path(root or os.getcwd()).resolve()
        self.policy_file = policy_file
        self.commands = commands
        self.sessions: dict[str, Session] = {}
        self._sessions_lock = threading.Lock()
        self._topic_locks: dict[str, threading.Lock] = {}
        self._workspace: Workspace | None = None
        self._documents: DocumentState | None = None
        self._raw = frozenset(name for name, spec in commands.items() if spec.raw)
        self._handlers: dict[str, Handler] = {}  # resolved on first use: their modules load only then
        #: The command line each topic is running, shared with the workspace: the journal records it (/changes).
        self.running: dict[str, str] = {}

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
                self._workspace = Workspace.load(self.root, self.policy_file)
                self._workspace.commands = self.running
            return self._workspace

    @property
    def documents(self) -> DocumentState:
        """The workspace's index cache and file watcher, shared by every topic; made on first use."""
        workspace = self.workspace  # outside the lock: loading the workspace takes it too
        with self._sessions_lock:
            if self._documents is None:
                from stringsh.documents.state import DocumentState

                self._documents = DocumentState(workspace)
            return self._documents

    def session(self, topic: str | None = None) -> Session:
        """The topic's session, created on first use; an invalid topic name is INVALID_TARGET."""
        name, kind = parse_topic(topic)
        session = self.sessions.get(name)
        if session is not None:
            return session
        with self._sessions_lock:
            if name not in self.sessions:
                self._topic_locks[name] = threading.Lock()
                self.sessions[name] = Session(topic=name, kind=kind)
            return self.sessions[name]

    def topic_sessions(self) -> list[Session]:
        """Every topic this dispatcher (one client: a daemon, a REPL, a script) has, oldest first; for /topics."""
        with self._sessions_lock:
            return list(self.sessions.values())

    def execute(self, text: str, topic: str | None = None) -> Reply:
        """Run one request (header plus optional body) in a topic and format its reply."""
        try:
            request = parse_request(text)
        except StringError as exc:
            header, request_id = reply_header(text)
            return format_reply(header, request_id, error=(exc.code, exc.text), topic=topic or "main")
        return self.execute_request(request, topic)

    def answer(self, item: StreamItem) -> Reply:
        """Reply to one item of a line stream: run it, or report why it could not be read."""
        if item.error:
            return format_error_item(item.text, item.error, item.topic or "main")
        if item.request is not None:
            return self.execute_request(item.request, item.topic)
        return self.execute(item.text, item.topic)

    def execute_request(self, request: Request, topic: str | None = None) -> Reply:
        """Run a parsed request, one at a time per topic, whichever thread calls."""
        try:
            session = self.session(topic)
        except StringError as exc:
            return format_reply(request.header, request.id, error=(exc.code, exc.text), topic=topic or "main")
        with self._topic_locks[session.topic]:
            return self.run_serialised(request, session)

    def run_serialised(self, request: Request, session: Session) -> Reply:
        """Run a parsed request in a session without taking its topic's lock: for a caller that already runs
        one request at a time per topic."""
        engine, started = self._workspace, time.perf_counter()
        before = engine.state.recorded_here()[0] if engine is not None else 0
        try:
            result = self._run(request, session)
        except StringError as exc:
            self._audit_refusal(request, session, exc.code, before, started)
            return format_reply(request.header, request.id, error=(exc.code, exc.text), topic=session.topic,
                                mask=self._mask())
        except Exception as exc:
            self._audit_refusal(request, session, f"INTERNAL_ERROR:{type(exc).__name__}", before, started)
            return format_reply(
                request.header, request.id, error=("INTERNAL_ERROR", internal_error_text(exc)), topic=session.topic,
                mask=self._mask(),
            )
        return format_reply(request.header, request.id, result, topic=session.topic, mask=self._mask())

    def _mask(self) -> Callable[[str], str] | None:
        """What masks this reply: the workspace's redactor once a command opened it (a reply with nothing from
        the workspace, `/help`, needs no mask, and opening it just for that would cost every start-up)."""
        engine = self._workspace
        return engine.redact_lines if engine is not None else None

    def _audit_refusal(self, request: Request, session: Session, outcome: str, before: int, started: float) -> None:
        """A request whose failure no audited operation recorded (a stale-write guard, bad arguments, an unknown
        command) is recorded as `request` with its first word only: its arguments may hold a value to hide."""
        engine = self._workspace
        if engine is None:
            return
        count, last = engine.state.recorded_here()
        if count != before and last == outcome:
            return
        from stringsh.workspace.audit import summarize_command

        word = summarize_command((request.header.split(maxsplit=1) or [""])[0][:80], engine.redactor)
        engine.state.record("request", [], session.topic, outcome, (time.perf_counter() - started) * 1000, None, word)

    def _run(self, request: Request, session: Session) -> Result:
        if session.kind == "bash" or session.bash_mode:  # every line goes to the shell, raw
            invocation = Invocation(name="bash-line", arg_text=request.header, body=request.body)
        else:
            invocation = parse_invocation(request, session.variables, raw_names=self._raw)
        handler = self._handlers.get(invocation.name)
        if handler is None:
            spec = self.commands.get(invocation.name)
            if spec is None:
                raise StringError(
                    "COMMAND_UNSUPPORTED",
                    f"Unknown command: /{invocation.name}",
                    "Use /help to see available commands.",
                )
            handler = self._handlers[invocation.name] = spec.handler()
        outer = self.running.get(session.topic)  # a command a command runs: the outer one is what the user typed
        if outer is None:
            self.running[session.topic] = request.header  # one request at a time per topic: no lock needed
        try:
            return handler(Context(self, session, invocation, request))
        finally:
            if outer is None:
                self.running.pop(session.topic, None)

    def close(self) -> None:
        """Stop every topic's shell; called when a front end exits."""
        for session in list(self.sessions.values()):
            session.close_shell()
        if self._workspace is not None:
            self._workspace.close()
            self._workspace = None
        if self._documents is not None:
            self._documents.close()  # stops the watcher's observer thread
