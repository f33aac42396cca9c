"""What a handler gets: the dispatcher, the topic's session and the parsed invocation."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

from stringsh.protocol.request import Invocation, Request

if TYPE_CHECKING:
    from stringsh.dispatcher import Dispatcher
    from stringsh.documents.service import DocumentService
    from stringsh.session import Session


@dataclass
class Context:
    dispatcher: Dispatcher
    session: Session
    invocation: Invocation
    request: Request

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
