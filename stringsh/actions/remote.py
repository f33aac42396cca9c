"""A page an HTTP action returned, open in a topic like a workspace document (stringsh.documents.actions makes them)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from stringsh.errors import StringError
from stringsh.render.document import Document
from stringsh.render.view import DocumentView, ViewLoader


@dataclass
class RemoteView(DocumentView):
    """A document an HTTP action returned: shown and navigable, but not a workspace file.

    `/refresh` and `/back` fetch a GET page again; a page from POST/PUT/PATCH/DELETE is never re-sent.
    """

    remote: ClassVar[bool] = True

    refetch: Callable[[], str] | None = None

    @property
    def folder(self) -> str:
        return ""

    def is_stale(self, workspace: object) -> bool:
        return False

    def with_block(self, block: str | None) -> RemoteView:
        return RemoteView(self.path, self.kind, self.doc, self.size, block=block, refetch=self.refetch)

    def reload(self, loader: ViewLoader) -> RemoteView:
        """Fetch the page again (the loader is for workspace files; a remote page has none)."""
        if self.refetch is None:
            raise StringError(
                "INVALID_TARGET",
                f"{self.path} was the answer to a request that changes things; it is not sent again.",
                "Run the action again to get a fresh answer.",
            )
        text = self.refetch()
        fresh = RemoteView(self.path, "markdown", Document.parse(text), len(text.encode()), refetch=self.refetch)
        fresh.block = self.block
        return fresh
