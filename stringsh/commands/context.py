"""What a handler gets: its host (the dispatcher, seen as `CommandHost`), the topic's session and the parsed
invocation."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from typing import TYPE_CHECKING, Protocol

from stringsh.documents.host import WorkspaceHost
from stringsh.protocol.request import Invocation, Request

if TYPE_CHECKING:
    from stringsh.commands.table import CommandSpec
    from stringsh.documents.service import DocumentService
    from stringsh.protocol.operator_model import BlockAnswerer
    from stringsh.session import Session


class CommandHost(WorkspaceHost, Protocol):
    """What commands use of the dispatcher that runs them, which sits above them: the workspace's owner plus its
    command table (/help) and its topics (/topics). Running requests stays the dispatcher's."""

    @property
    def commands(self) -> Mapping[str, CommandSpec]: ...

    def topic_sessions(self) -> list[Session]: ...

    def end_topic(self, topic: str) -> None: ...

    @property
    def blocks(self) -> BlockAnswerer | None:
        """What answers an OPERATOR_CMD block sent as a request (`operator-block`), None where nothing does."""
        ...


class Context:
    """A plain class, not a dataclass: every request makes one, and dataclasses cost start-up."""

    def __init__(self, dispatcher: CommandHost, session: Session, invocation: Invocation, request: Request) -> None:
        self.dispatcher = dispatcher
        self.session = session
        self.invocation = invocation
        self.request = request

    @property
    def args(self) -> list[str]:
        return self.invocation.args

    @property
    def arg_text(self) -> str:
        return self.invocation.arg_text

    @property
    def body(self) -> str | None:
        return self.invocation.body

    @cached_property
    def documents(self) -> DocumentService:
        """The topic's document service (imported on first use: commands that open nothing never load it)."""
        from stringsh.documents.service import DocumentService

        return DocumentService(self.dispatcher, self.session)
