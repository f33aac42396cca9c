"""HTTP actions with httpx: bounded time, bounded redirects, bounded body, errors that say what happened.

GET and DELETE send the payload as a query string; POST, PUT and PATCH send the filled body template, or the
flat payload as JSON. A non-2xx answer is an error carrying the status and the start of the body. httpx is
imported on first use only, so scripted start-up does not pay for it.
"""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from stringsh.actions.template import MISSING, HttpResponse
from stringsh.errors import StringError

PLACEHOLDER = re.compile(r"\{([A-Za-z_]\w*)(?:\[(\d+)\])?\}")
EXCERPT = 500


@dataclass(frozen=True)
class HttpLimits:
    timeout: float = 30.0
    max_redirects: int = 5
    max_bytes: int = 10 * 1024 * 1024


@dataclass
class FetchedResponse(HttpResponse):
    url: str = ""
    content_type: str = ""


def fill_url(template: str, payload: dict[str, str], variables: Mapping[str, str]) -> str:
    """Put URL-encoded `{field}` values into the target; fields used there leave the payload. `{...args}` is every
    field as `--name value` (String's form), and then none is left to send as a query or body."""
    if "{...args}" in template:
        flags = " ".join(f"--{key} {quote(value, safe='')}" for key, value in payload.items())
        template = template.replace("{...args}", flags)
        payload.clear()
    used: set[str] = set()

    def replace(match: re.Match[str]) -> str:
        name, index = match.group(1), match.group(2)
        if name in payload:
            used.add(name)
            value = payload[name]
            if index is not None:
                parts = value.split(",")
                value = parts[int(index)] if int(index) < len(parts) else ""
            return quote(value, safe="")
        if name in variables and index is None:
            return quote(variables[name], safe="")
        return match.group(0)

    url = PLACEHOLDER.sub(replace, template)
    for name in used:
        payload.pop(name, None)
    return url


def typed(payload: Mapping[str, str], types: Mapping[str, str]) -> dict[str, object]:
    """The flat JSON body: `number` fields as numbers and `boolean` fields as booleans, the rest as strings."""
    out: dict[str, object] = {}
    for key, value in payload.items():
        kind = types.get(key)
        if kind == "number":
            try:
                number = float(value)
            except ValueError:  # an author's default that is not a number: sent as written
                out[key] = value
                continue
            whole = number.is_integer() and "." not in value and "e" not in value.lower()
            out[key] = int(number) if whole else number
        elif kind == "boolean":
            out[key] = value.lower() in ("true", "yes", "1", "on")
        else:
            out[key] = value
    return out


def fill_headers(headers: list[tuple[str, str]], variables: Mapping[str, str]) -> list[tuple[str, str]]:
    """Session `{var}` in header values (`$VAR` is resolved by the caller first)."""
    return [(k, PLACEHOLDER.sub(lambda m: variables.get(m.group(1), m.group(0)), v)) for k, v in headers]


class HttpClients:
    """The httpx clients of one dispatcher, one per limits: TLS set-up and connections are reused between its
    actions, and nothing is shared with another dispatcher (or workspace) in the same process.

    Cookies are never kept (the jar refuses every domain), so nothing leaks from one action or topic to another.
    """

    def __init__(self) -> None:
        self._clients: dict[tuple[float, int], Any] = {}
        self._lock = threading.Lock()

    def get(self, limits: HttpLimits) -> Any:
        from http.cookiejar import CookieJar, DefaultCookiePolicy  # ~15 ms with urllib: first use only

        import httpx

        key = (limits.timeout, limits.max_redirects)
        with self._lock:
            client = self._clients.get(key)
            if client is None:
                client = self._clients[key] = httpx.Client(
                    timeout=httpx.Timeout(limits.timeout),
                    follow_redirects=True,
                    max_redirects=limits.max_redirects,
                    cookies=CookieJar(policy=DefaultCookiePolicy(allowed_domains=[])),
                )
            return client

    def close(self) -> None:
        with self._lock:
            clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            client.close()


def _reason(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def fetch(
    method: str,
    url: str,
    *,
    headers: list[tuple[str, str]],
    payload: dict[str, str],
    body: str | None,
    types: Mapping[str, str] | None = None,
    limits: HttpLimits = HttpLimits(),
    clients: HttpClients | None = None,
) -> FetchedResponse:
    """Send one request; raises StringError for timeouts, transport failures, redirect loops and non-2xx.

    `clients` keeps connections for the caller (a dispatcher's); without it the client lives for this request."""
    if clients is None:
        own = HttpClients()
        try:
            return fetch(method, url, headers=headers, payload=payload, body=body, types=types, limits=limits,
                         clients=own)
        finally:
            own.close()
    import httpx  # imported here: scripted start-up must not pay for it

    request_headers = httpx.Headers(headers)
    kwargs: dict[str, object] = {}
    shown = f"{method} {url}"  # errors name the action's URL, not every flag sent
    if method in ("GET", "DELETE"):
        # added to the URL's own query (httpx's `params=` would replace it); a bad URL is reported by the request
        with contextlib.suppress(httpx.InvalidURL, TypeError):
            url = str(httpx.URL(url).copy_merge_params(payload)) if payload else url
    elif body is not None:
        kwargs["content"] = body.encode("utf-8")
        request_headers.setdefault("Content-Type", "application/json")
    else:
        kwargs["content"] = json.dumps(typed(payload, types or {}), ensure_ascii=False).encode("utf-8")
        request_headers.setdefault("Content-Type", "application/json")
    deadline = time.monotonic() + limits.timeout  # httpx times each read; a server trickling bytes must not run on
    try:
        with clients.get(limits).stream(method, url, headers=request_headers, **kwargs) as response:  # type: ignore[arg-type]
            chunks: list[bytes] = []
            size = 0
            for chunk in response.iter_bytes():
                if time.monotonic() > deadline:
                    raise httpx.ReadTimeout("the whole answer took too long")
                size += len(chunk)
                if size > limits.max_bytes:
                    raise StringError(
                        "TOO_LARGE",
                        f"Response to {shown} is larger than {limits.max_bytes // (1024 * 1024)} MB; it was not read.",
                    )
                chunks.append(chunk)
            data = b"".join(chunks)
            status, final_url = response.status_code, str(response.url)
            content_type = response.headers.get("content-type", "")
            encoding = response.charset_encoding or "utf-8"
    except httpx.TimeoutException:
        raise StringError(
            "TIMEOUT", f"No answer within {limits.timeout:g}s: {shown}", "Try again later, or check the server."
        ) from None
    except httpx.TooManyRedirects:
        raise StringError("LOAD_ERROR", f"Too many redirects (more than {limits.max_redirects}): {shown}") from None
    except (httpx.InvalidURL, httpx.UnsupportedProtocol) as exc:
        raise StringError("INVALID_PAYLOAD", f"Invalid URL for {method}: {url} ({_reason(exc)})") from None
    except httpx.HTTPError as exc:
        raise StringError("LOAD_ERROR", f"Request failed: {shown} ({_reason(exc)})") from None
    try:
        text = data.decode(encoding, "replace")
    except LookupError:
        text = data.decode("utf-8", "replace")
    parsed = MISSING
    if text.strip():
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = MISSING
    if not 200 <= status < 300:
        excerpt = text.strip()
        if len(excerpt) > EXCERPT:
            excerpt = excerpt[:EXCERPT] + "..."
        phrase = httpx.codes.get_reason_phrase(status)
        code = "AUTH_REQUIRED" if status in (401, 403) else ("NOT_FOUND" if status == 404 else "LOAD_ERROR")
        message = f"HTTP {status} {phrase}: {shown}".rstrip()
        raise StringError(code, f"{message}\n{excerpt}" if excerpt else message)
    return FetchedResponse(status, text, parsed, url=final_url, content_type=content_type)
