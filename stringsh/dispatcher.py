"""Request text in, reply text out: the one path every front end takes.

Keeps one Session per topic and serialises commands per topic; front ends only move text.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from stringsh.commands.context import Context
from stringsh.commands.registry import REGISTRY, load_commands, raw_names
from stringsh.errors import StringError
from stringsh.protocol.request import Invocation, Request, parse_invocation, parse_request, reply_header
from stringsh.protocol.response import Reply, Result, format_error_item, format_reply
from stringsh.protocol.stream import StreamItem
from stringsh.protocol.topics import parse_topic
from stringsh.session import Session
from stringsh.workspace import Workspace

if TYPE_CHECKING:
    from stringsh.documents.state import DocumentState


def internal_error_text(exc: BaseException) -> str:
    reason = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {reason}" if reason else type(exc).__name__


class Dispatcher:
    """Owns the workspace root and the sessions; `execute` never raises."""

    def __init__(self, root: str | os.PathLike[str] | None = None, *, policy_file: Path | None = None) -> None:
        self.root = Path(root or os.getcwd()).resolve()
        self.policy_file = policy_file
        self.sessions: dict[str, Session] = {}
        self._sessions_lock = threading.Lock()
        self._topic_locks: dict[str, threading.Lock] = {}
        self._workspace: Workspace | None = None
        self._documents: DocumentState | None = None
        load_commands()
        self._raw = raw_names()

    def check(self) -> None:
        """Fail at start-up, not on the first request, when the workspace or its policy is unusable."""
        self.workspace  # noqa: B018 - loading it validates the policy

    @property
    def workspace(self) -> Workspace:
        """The confined engine every file command goes through; loading it checks the policy file."""
        with self._sessions_lock:
            if self._workspace is None:
                self._workspace = Workspace.load(self.root, self.policy_file)
            return self._workspace

    @property
    def documents(self) -> DocumentState:
        """The workspace's index cache and file watcher, shared by every topic; made on first use."""
        with self._sessions_lock:
            if self._documents is None:
                from stringsh.documents.state import DocumentState

                self._documents = DocumentState(self.root)
            return self._documents

    def session(self, topic: str | None = None) -> Session:
        name, kind = parse_topic(topic)
        with self._sessions_lock:
            if name not in self.sessions:
                self.sessions[name] = Session(topic=name, kind=kind)
                self._topic_locks[name] = threading.Lock()
            return self.sessions[name]

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
        return self.execute(item.text, item.topic)

    def execute_request(self, request: Request, topic: str | None = None) -> Reply:
        try:
            session = self.session(topic)
        except StringError as exc:
            return format_reply(request.header, request.id, error=(exc.code, exc.text), topic=topic or "main")
        with self._topic_locks[session.topic]:
            try:
                result = self._run(request, session)
            except StringError as exc:
                return format_reply(request.header, request.id, error=(exc.code, exc.text), topic=session.topic)
            except Exception as exc:
                return format_reply(
                    request.header, request.id, error=("INTERNAL_ERROR", internal_error_text(exc)), topic=session.topic
                )
            return format_reply(request.header, request.id, result, topic=session.topic)

    def _run(self, request: Request, session: Session) -> Result:
        if session.kind == "bash" or session.bash_mode:  # every line goes to the shell, raw
            invocation = Invocation(name="bash-line", arg_text=request.header, body=request.body)
        else:
            invocation = parse_invocation(request, session.variables, raw_names=self._raw)
        command = REGISTRY.get(invocation.name)
        if command is None:
            raise StringError(
                "COMMAND_UNSUPPORTED", f"Unknown command: /{invocation.name}", "Use /help to see available commands."
            )
        return command.handler(Context(self, session, invocation, request))

    def close(self) -> None:
        """Stop every topic's shell; called when a front end exits."""
        for session in list(self.sessions.values()):
            session.close_shell()
        if self._workspace is not None:
            self._workspace.close()
            self._workspace = None
        if self._documents is not None:
            self._documents.close()  # stops the watcher's observer thread
