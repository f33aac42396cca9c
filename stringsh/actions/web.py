"""`/open https://…`: fetch one web page as a document, bounded and checked at every step.

What may be fetched: `https://` anywhere, `http://` only on this machine (loopback), every redirect hop checked
the same way and at most `HttpLimits.max_redirects` of them. What is shown: HTML converted to markdown (the
original kept for `/source`), markdown as markdown, JSON pretty-printed in a fence, other text as it is. Binary
answers (images, archives, PDFs, a body with NUL bytes) are refused before their bytes are read. httpx is
imported on first use only: start-up does not pay for it.
"""

from __future__ import annotations

import ipaddress
import json
import time
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from stringsh.actions.html2md import html_to_markdown, looks_like_html
from stringsh.actions.http import EXCERPT, HttpClients, HttpLimits
from stringsh.errors import StringError

TEXT_TYPES = ("application/json", "application/xml", "application/xhtml+xml", "application/javascript")
MARKDOWN_TYPES = ("text/markdown", "text/x-markdown")
ACCEPT = "text/markdown, text/html;q=0.9, text/*;q=0.8, */*;q=0.1"  # String asks /open pages for markdown
ONLY_TEXT = "Only text pages open here: HTML, markdown, plain text or JSON."


@dataclass(frozen=True)
class WebPage:
    """One fetched page: where it ended up, what it was, what it shows."""

    url: str  # after redirects
    content_type: str
    original: str  # the text the server sent (HTML before conversion), for /source
    shown: str  # the document: markdown, or the text as it is
    kind: str  # "markdown" or "text"


def is_web(target: str) -> bool:
    return target[:8].lower().startswith(("http://", "https://"))


def is_loopback(host: str) -> bool:
    if host.lower() in ("localhost", "localhost.") or host.lower().endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_url(url: str) -> None:
    """https:// anywhere; http:// only to this machine, where nothing on the way can read or change the page."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme == "https" and parts.hostname:
        return
    if scheme == "http" and parts.hostname and is_loopback(parts.hostname):
        return
    if scheme == "http" and parts.hostname:
        raise StringError(
            "NOT_PERMITTED",
            f"Plain http:// pages open only from this machine (loopback): {url}",
            f"Use https://{url[7:]}",
        )
    raise StringError("INVALID_TARGET", f"Not a web page address: {url}", "Open https://host/path, or a file by path.")


def media_type(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip().lower()


def is_text_type(mime: str) -> bool:
    return not mime or mime.startswith("text/") or mime in TEXT_TYPES or mime.endswith(("+json", "+xml"))


def fetch_page(url: str, limits: HttpLimits, clients: HttpClients, *, max_bytes: int) -> WebPage:
    """GET one page; every refusal is a coded error naming the URL, never a traceback."""
    import httpx  # first use only

    check_url(url)
    deadline = time.monotonic() + limits.timeout  # for the whole fetch, redirects included
    client = clients.get(limits)
    hops = 0
    try:
        while True:
            with client.stream("GET", url, follow_redirects=False, headers={"Accept": ACCEPT}) as response:
                if response.is_redirect:
                    location = response.headers.get("location", "")
                    hops += 1
                    if hops > limits.max_redirects:
                        raise StringError(
                            "LOAD_ERROR", f"Too many redirects (more than {limits.max_redirects}): GET {url}",
                            "Open the page the site means directly.",
                        )
                    url = urljoin(url, location)
                    check_url(url)
                    continue
                status = response.status_code
                content_type = response.headers.get("content-type", "")
                mime = media_type(content_type)
                if 200 <= status < 300 and not is_text_type(mime):
                    raise StringError("BINARY_FILE", f"{url} is {mime} (binary); it is not shown.", ONLY_TEXT)
                declared = response.headers.get("content-length", "")
                if declared.isdigit() and int(declared) > max_bytes:
                    raise too_large(url, max_bytes)
                data = read_body(response, url, deadline, max_bytes)
                encoding = response.charset_encoding or "utf-8"
                break
    except httpx.TimeoutException:
        raise StringError(
            "TIMEOUT", f"No answer within {limits.timeout:g}s: GET {url}",
            "Try again later, or allow more time: /set {_http_timeout} = 60",
        ) from None
    except httpx.HTTPError as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise StringError(
            "LOAD_ERROR", f"Request failed: GET {url} ({reason})", "Check the address, or try again later."
        ) from None
    try:
        text = data.decode(encoding, "replace")
    except LookupError:
        text = data.decode("utf-8", "replace")
    if not 200 <= status < 300:
        raise status_error(status, url, text)
    if "\x00" in text:
        raise StringError("BINARY_FILE", f"{url} sent binary data (NUL bytes); it is not shown.", ONLY_TEXT)
    return page_of(url, content_type, text)


def read_body(response: object, url: str, deadline: float, max_bytes: int) -> bytes:
    """The body, refused past the size cap or the time limit (a server trickling bytes must not run on)."""
    import httpx

    assert isinstance(response, httpx.Response)
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
        if time.monotonic() > deadline:
            raise httpx.ReadTimeout("the whole page took too long")
        size += len(chunk)
        if size > max_bytes:
            raise too_large(url, max_bytes)
        chunks.append(chunk)
    return b"".join(chunks)


def too_large(url: str, max_bytes: int) -> StringError:
    return StringError(
        "TOO_LARGE", f"{url} is larger than {max_bytes // 1024} KiB; it was not read.",
        "Open a smaller page, or raise [limits] max_read_bytes in your policy.",
    )


def status_error(status: int, url: str, text: str) -> StringError:
    from http import HTTPStatus

    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = ""
    excerpt = text.strip()
    if len(excerpt) > EXCERPT:
        excerpt = excerpt[:EXCERPT] + "..."
    code = "AUTH_REQUIRED" if status in (401, 403) else ("NOT_FOUND" if status == 404 else "LOAD_ERROR")
    message = f"HTTP {status} {phrase}".rstrip() + f": GET {url}"
    return StringError(code, f"{message}\n{excerpt}" if excerpt else message)


def page_of(url: str, content_type: str, text: str) -> WebPage:
    mime = media_type(content_type)
    if mime in ("text/html", "application/xhtml+xml") or (not mime and looks_like_html("", text)):
        return WebPage(url, content_type, text, html_to_markdown(text, base=url), "markdown")
    if mime in MARKDOWN_TYPES:
        return WebPage(url, content_type, text, text, "markdown")
    if mime == "application/json" or mime.endswith("+json"):
        try:
            pretty = json.dumps(json.loads(text), indent=2, ensure_ascii=False)
        except ValueError:
            return WebPage(url, content_type, text, text, "text")
        return WebPage(url, content_type, text, f"```json\n{pretty}\n```", "markdown")
    return WebPage(url, content_type, text, text, "text")
