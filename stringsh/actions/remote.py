"""A page an HTTP action returned, open in a topic like a workspace document (stringsh.documents.actions makes them)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from stringsh.actions.web import WebPage
from stringsh.errors import StringError
from stringsh.hints import command_word
from stringsh.render.document import Document
from stringsh.render.view import DocumentView, ViewLoader


class RemoteView(DocumentView):
    """A document an HTTP action returned: shown and navigable, but not a workspace file.

    `/refresh` and `/back` fetch a GET page again; a page from POST/PUT/PATCH/DELETE is never re-sent.
    """

    remote: ClassVar[bool] = True
    _fields = (*DocumentView._fields, "refetch")

    def __init__(self, *args: Any, refetch: Callable[[], str] | None = None, **fields: Any) -> None:
        super().__init__(*args, **fields)
        self.refetch = refetch

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


class WebView(RemoteView):
    """A web page `/open https://…` fetched: its markdown (or text) shown, the server's text kept for `/source`;
    `/refresh` and `/back` fetch it again."""

    _fields = (*RemoteView._fields, "original", "fetcher")

    def __init__(self, *args: Any, original: str = "", fetcher: Callable[[], WebPage] | None = None,
                 **fields: Any) -> None:
        super().__init__(*args, **fields)
        self.original = original
        self.fetcher = fetcher

    @classmethod
    def of(cls, page: WebPage, fetcher: Callable[[], WebPage] | None) -> WebView:
        doc = Document.parse(page.shown) if page.kind == "markdown" else Document(page.shown)
        return cls(page.url, page.kind, doc, len(page.shown.encode()), mime=page.content_type, original=page.original,
                   fetcher=fetcher)

    @property
    def base_url(self) -> str:
        return self.path

    def with_block(self, block: str | None) -> WebView:
        view = WebView(self.path, self.kind, self.doc, self.size, block=block, mime=self.mime, original=self.original,
                       fetcher=self.fetcher)
        view.auto_shortcuts = dict(self.auto_shortcuts)
        return view

    def as_source(self) -> WebView:
        """The server's text as a plain-text view, for /source."""
        return WebView(self.path, "text", Document(self.original), len(self.original.encode()), mime=self.mime,
                       original=self.original, fetcher=self.fetcher)

    def reload(self, loader: ViewLoader) -> WebView:
        if self.fetcher is None:
            raise StringError(
                "INVALID_TARGET", f"{self.path} cannot be fetched again.",
                f"Open it again: /open {command_word(self.path)}",
            )
        fresh = WebView.of(self.fetcher(), self.fetcher)
        fresh.block = self.block
        return fresh
