"""The guards every loopback HTTP server of stringsh keeps (`stringsh mcp --http`, `stringsh web`), in one place.

- The bearer token: read from the user's config folder (`mcp-token`, never from a workspace), or made fresh at start;
  a request to a guarded app without `Authorization: Bearer TOKEN` (compared in constant time) is refused with 401,
  one with two `Authorization` headers with 400.
- Host and Origin: a loopback server is reached by a browser page through DNS rebinding unless the Host it was asked
  under, and the Origin of a page that calls it, name the address served (`allowed_hosts`).
- Connections: a request head must arrive whole within a deadline and stay under `MAX_HEAD` bytes
  (`uvicorn_limits`); an idle keep-alive connection is closed.
- The address: bound before the server says it serves there (`listening_socket`), so a port another program holds
  is one refusal on stderr, not a URL and a token printed for it and then the HTTP server's own error.
"""

from __future__ import annotations

import errno
import hmac
import ipaddress
import json
import os
import secrets
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stringsh.errors import StringError
from stringsh.userdirs import config_dir

if TYPE_CHECKING:
    import asyncio
    from collections.abc import Awaitable, Callable, MutableMapping

    from uvicorn.protocols.http.h11_impl import H11Protocol

    Scope = MutableMapping[str, Any]
    Message = MutableMapping[str, Any]
    Receive = Callable[[], Awaitable[Message]]
    Send = Callable[[Message], Awaitable[None]]
    App = Callable[[Scope, Receive, Send], Awaitable[None]]

TOKEN_FILE = "mcp-token"
TOKEN_HINT = "Send the token stringsh printed at start (or the one in its config folder): Authorization: Bearer TOKEN"
#: The `WWW-Authenticate` challenges (RFC 6750): a realm, an error code where a token was sent, and a description
#: saying where the token comes from, so a client (the MCP Inspector) asks for a token instead of starting OAuth,
#: which stringsh does not serve.
_HOW = ("stringsh prints a token at start, or reads mcp-token in its config folder; "
        "send it as Authorization: Bearer TOKEN (no OAuth)")
CHALLENGE_MISSING = f'Bearer realm="stringsh", error_description="a bearer token is required: {_HOW}"'.encode()
CHALLENGE_WRONG = (f'Bearer realm="stringsh", error="invalid_token", '
                   f'error_description="the bearer token is not the one stringsh serves with: {_HOW}"').encode()
#: Seconds a connection gets to send a whole request head.
HEADER_SECONDS = 10.0
#: Seconds an idle keep-alive connection is kept between requests (uvicorn's own default).
KEEP_ALIVE_SECONDS = 5.0
#: Bytes of one request head at most (h11's own default).
MAX_HEAD = 16 * 1024


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def is_wildcard(address: str) -> bool:
    """`0.0.0.0` or `::`: reached under names stringsh cannot know."""
    try:
        return ipaddress.ip_address(address) in (ipaddress.ip_address("0.0.0.0"), ipaddress.ip_address("::"))
    except ValueError:
        return False


def listening_socket(address: str, port: int, again: str) -> socket.socket:
    """A socket bound and listening on `address:port`; else StringError: BUSY when another program holds the port
    (with `again`, the next step, as its hint), NOT_PERMITTED for a port kept for the system, INVALID_PAYLOAD for an
    address this machine does not have."""
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    try:
        return socket.create_server((address, port), family=family, backlog=128)
    except OSError as exc:
        number = exc.errno or 0
        code, hint = {errno.EADDRINUSE: ("BUSY", again),
                      errno.EACCES: ("NOT_PERMITTED", "Ports below 1024 are the system's: name one above.")}.get(
            number, ("INVALID_PAYLOAD", "Name an address this machine has (`ip address` lists them)."))
        shown = f"[{address}]" if ":" in address else address
        raise StringError(code, f"cannot listen on {shown}:{port}: {os.strerror(number) if number else exc}",
                          hint) from None


def allowed_hosts(address: str, port: int) -> set[str]:
    """The `Host` values a request to `address:port` may carry (each loopback spelling on loopback); a page's
    `Origin` must be `http://` and one of them."""
    shown = f"[{address}]" if ":" in address else address
    hosts = {f"{shown}:{port}"}
    if is_loopback(address):
        hosts |= {f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"}
    return hosts


def load_token(roots: list[Path]) -> tuple[str, Path | None]:
    """The config folder's token, else a fresh one (None: printed, not stored). A token file inside a workspace
    root is ignored: the workspace must never choose who may call."""
    path = config_dir() / TOKEN_FILE
    try:
        real = path.resolve()
        inside = any(real.is_relative_to(root) for root in roots)
        token = "" if inside else path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        token = ""
    if len(token) >= 16:
        return token, path
    return secrets.token_urlsafe(32), None


class Duplicate:
    """More than one `Authorization` header."""


DUPLICATE = Duplicate()


def authorization(scope: Scope) -> bytes | Duplicate:
    """The request's one `Authorization` value (b"" when none), or DUPLICATE."""
    values = [value for name, value in scope.get("headers") or [] if name == b"authorization"]
    if len(values) > 1:
        return DUPLICATE
    return values[0] if values else b""


def header(scope: Scope, name: bytes) -> bytes | None:
    """A request header's value (the first, when sent more than once), None when absent."""
    return next((value for key, value in scope.get("headers") or [] if key == name), None)


async def send_json(send: Send, status: int, answer: dict[str, object],
                    headers: tuple[tuple[bytes, bytes], ...] = ()) -> None:
    """A whole JSON response."""
    body = json.dumps(answer).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"cache-control", b"no-store"), *headers,
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


async def refuse_duplicate(send: Send) -> None:
    await send_json(send, 400, {"error": "ERROR(INVALID_PAYLOAD): more than one Authorization header",
                                "hint": "Send the token once: Authorization: Bearer TOKEN"})


def require_token(app: App, token: str) -> App:
    """The app, answering 401 to any HTTP request without `Authorization: Bearer TOKEN` (compared in constant
    time), 400 to one with two Authorization headers; lifespan events pass through."""
    expected = f"Bearer {token}".encode()

    async def guarded(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = authorization(scope)
            if isinstance(given, Duplicate):
                await refuse_duplicate(send)
                return
            if not hmac.compare_digest(given, expected):
                challenge = CHALLENGE_MISSING if not given else CHALLENGE_WRONG
                await send_json(send, 401, {"error": "ERROR(AUTH_REQUIRED): a bearer token is required",
                                            "hint": TOKEN_HINT}, ((b"www-authenticate", challenge),))
                return
        await app(scope, receive, send)

    return guarded


def bounded_h11(header_seconds: float) -> type[H11Protocol]:
    """uvicorn's h11 protocol with a deadline on each request head: uvicorn times out only an idle keep-alive
    connection, never one that connected and sent nothing, or half a head."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol as Base

    class BoundedH11(Base):
        _head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is h11.IDLE:  # still waiting for a whole head
                if self._head_timer is None:
                    self._arm()
            else:
                self._disarm()

        def on_response_complete(self) -> None:
            self._disarm()  # the keep-alive timeout now covers the wait for the next request's first byte
            super().on_response_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            self._disarm()
            self._head_timer = self.loop.call_later(header_seconds, self._head_overdue)

        def _disarm(self) -> None:
            if self._head_timer is not None:
                self._head_timer.cancel()
                self._head_timer = None

        def _head_overdue(self) -> None:
            self._head_timer = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.close()

    return BoundedH11


def uvicorn_limits(header_seconds: float = HEADER_SECONDS,
                   keep_alive_seconds: float = KEEP_ALIVE_SECONDS) -> dict[str, Any]:
    """The uvicorn.Config arguments that bound a connection."""
    return {"http": bounded_h11(header_seconds), "timeout_keep_alive": keep_alive_seconds,
            "h11_max_incomplete_event_size": MAX_HEAD}
