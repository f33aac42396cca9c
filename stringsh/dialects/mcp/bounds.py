"""What one caller can hold of `stringsh mcp --http`: sessions, connections, and the one token it sends.

- Sessions: at most `MAX_SESSIONS` open at once (`--max-sessions`). Each may hold a topic with a sandboxed shell;
  a request that would open another is refused with HTTP 503 and a JSON-RPC error `ERROR(BUSY): …` and a hint,
  before the SDK makes anything (the SDK's own limit is set to the same number, so two opening requests racing
  past the count still cannot pass it). Sessions end when the client sends DELETE, or after `sessions.IDLE_SECONDS`
  idle.
- Connections: a connection must send a whole request head within `HEADER_SECONDS` of connecting, or of its first
  byte after the previous response (`--header-timeout`), and an idle keep-alive connection is closed after
  `KEEP_ALIVE_SECONDS` (`--idle-timeout`); a head longer than `MAX_HEAD` bytes is refused with 400. A client that
  opens connections and sends half a head (or nothing) holds each for seconds, not forever.
- `Authorization`: exactly one header. Two are refused with 400 (a proxy that adds one and a client that sends
  another would otherwise decide by order which token counts).

The connection bounds and the `Authorization` rule are stringsh/httpguard.py's, shared with `stringsh web`.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError
from stringsh.httpguard import HEADER_SECONDS, KEEP_ALIVE_SECONDS

if TYPE_CHECKING:
    from collections.abc import Callable

    from stringsh.dialects.mcp.asgi import App, Receive, Scope, Send
    from stringsh.options import Options

#: Open HTTP sessions at most, by default: each may hold a shell (a bash process, sandboxed: a few MB each).
MAX_SESSIONS = 64
SESSION_HEADER = b"mcp-session-id"
#: The JSON-RPC code of a server-side refusal (the implementation-defined range).
SERVER_BUSY = -32000


class Limits(NamedTuple):
    sessions: int
    header_seconds: float
    keep_alive_seconds: float


def limits(options: Options) -> Limits:
    """The bounds `--max-sessions`, `--header-timeout` and `--idle-timeout` set, else the defaults; INVALID_PAYLOAD
    for a value that is not a positive number."""
    sessions = options.max_sessions if options.max_sessions is not None else MAX_SESSIONS
    header = options.header_timeout if options.header_timeout is not None else HEADER_SECONDS
    keep_alive = options.idle_timeout if options.idle_timeout is not None else KEEP_ALIVE_SECONDS
    for flag, value in (("--max-sessions", sessions), ("--header-timeout", header), ("--idle-timeout", keep_alive)):
        if not (math.isfinite(value) and value > 0):
            raise StringError("INVALID_PAYLOAD", f"{flag} wants a positive number, got {value:g}",
                              f"Give one: {flag} {MAX_SESSIONS if flag == '--max-sessions' else 10}")
    return Limits(int(sessions), float(header), float(keep_alive))


def session_cap(app: App, count: Callable[[], int], limit: int) -> App:
    """The app, refusing a request that would open a session (a POST without `Mcp-Session-Id`) while `limit`
    sessions are open."""
    message = (f"ERROR(BUSY): {limit} MCP sessions are open, the most this server takes\n"
               "End one (HTTP DELETE with its Mcp-Session-Id) or wait for an idle one to end; the server's "
               "--max-sessions sets the limit.")

    async def capped(scope: Scope, receive: Receive, send: Send) -> None:
        if (scope["type"] == "http" and scope.get("method") == "POST"
                and not any(name == SESSION_HEADER for name, _ in scope.get("headers") or [])
                and count() >= limit):
            body = json.dumps({"jsonrpc": "2.0", "id": None, "error": {
                "code": SERVER_BUSY, "message": message, "data": {"code": "BUSY", "limit": limit}}}).encode()
            await send({"type": "http.response.start", "status": 503,
                        "headers": [(b"content-type", b"application/json"), (b"retry-after", b"5"),
                                    (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return
        await app(scope, receive, send)

    return capped
