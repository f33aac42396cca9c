"""Web pages a topic opens (`/open https://…`, a web `@shortcut`): fetched with the topic's limits, audited,
their errors masked like every other answer. The HTTP machinery is imported only when a page is opened."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from stringsh.documents.actions import http_limits

if TYPE_CHECKING:
    from stringsh.actions.remote import WebView
    from stringsh.actions.web import WebPage
    from stringsh.documents.service import DocumentService


def fetch_view(documents: DocumentService, url: str) -> WebView:
    """The page at `url` as a view (not yet open); `/refresh` and `/back` fetch it again the same way."""
    from stringsh.actions.remote import WebView
    from stringsh.actions.web import check_url, fetch_page

    check_url(url)  # refused before anything is sent or audited as sent
    workspace = documents.workspace
    limits = http_limits(documents.session.variables)
    max_bytes = min(limits.max_bytes, workspace.policy.limits.max_read_bytes)
    clients = documents.state.http_clients
    topic = documents.session.topic
    parts = urlsplit(url)
    where = f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"  # the audit log keeps no paths or queries

    def fetcher() -> WebPage:
        with workspace.audited("http-get", [where], topic=topic):  # a URL in a refusal is masked with the reply
            return fetch_page(url, limits, clients, max_bytes=max_bytes)

    return WebView.of(fetcher(), fetcher)


def web_href(base: str, href: str) -> str | None:
    """A shortcut's target as a web address: absolute ones as they are, relative ones against a web page's URL;
    None when it is a workspace path."""
    from stringsh.actions.web import is_web

    if is_web(href):
        return href
    if is_web(base) and "://" not in href:
        from urllib.parse import urljoin

        return urljoin(base, href)
    return None
