"""What documents need from the layers above them, as protocols: whoever owns the workspace (the dispatcher) and
whoever runs a command (the command context) pass themselves in, and documents see only these few members, not
the command table, the sessions of other topics or the request loop."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from stringsh.documents.service import DocumentService
    from stringsh.documents.state import DocumentState
    from stringsh.session import Session
    from stringsh.workspace import Workspace


class WorkspaceHost(Protocol):
    """The owner of one workspace: its engine, its root and the document state its topics share (each made on
    first use, so a command that opens nothing loads nothing)."""

    @property
    def workspace(self) -> Workspace: ...

    @property
    def root(self) -> Path: ...

    @property
    def documents(self) -> DocumentState: ...


class Caller(Protocol):
    """A running command as document helpers see it: its topic's session and that topic's document service."""

    @property
    def session(self) -> Session: ...

    @property
    def documents(self) -> DocumentService: ...
