"""What a process manager needs of `stringsh mcp --http`: a health endpoint and a graceful stop.

- `GET /healthz` answers 200 without the bearer token, so a liveness probe needs no secret: `{"status": "ok",
  "sessions": N}`. With the token it also names the workspace folder and stringsh's version. Only that exact
  path and method pass without the token; every other request still needs it (http.py).
- SIGTERM or SIGINT: stop accepting connections, let the calls in flight finish (up to `GRACE` seconds; a shell
  command still running then is interrupted, as Ctrl-C would), then return, so that the caller closes every
  topic's shell and the workspace (journal closed, audit records flushed) and exits 0. uvicorn would raise the
  signal again once it stopped, which kills the process before any of that: here it is not raised again.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from stringsh import __version__
from stringsh.httpguard import authorization
from stringsh.httpstop import GracefulServer, InFlight

if TYPE_CHECKING:
    from collections.abc import Callable

    from stringsh.dialects.mcp.logjson import App, Receive, Scope, Send
    from stringsh.dispatcher import Dispatcher

HEALTH_PATH = "/healthz"
#: Seconds the calls in flight get to finish after SIGTERM before running shell commands are interrupted.
GRACE = 10.0
#: Seconds an interrupted shell command then gets to send its reply.
SHELL_STOP = 3.0
#: The graceful stop is stringsh/httpstop.py's, shared with `stringsh web`.
__all__ = ["GRACE", "SHELL_STOP", "GracefulServer", "InFlight", "interrupt_shells", "session_counter", "with_health"]


def with_health(app: App, token: str, sessions: Callable[[], int], workspace: str) -> App:
    """The app, answering `GET /healthz` itself (before the token guard); `sessions` counts the open MCP sessions."""
    expected = f"Bearer {token}".encode()

    async def health(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path") != HEALTH_PATH or scope.get("method") not in ("GET", "HEAD"):
            await app(scope, receive, send)
            return
        import hmac

        answer: dict[str, Any] = {"status": "ok", "sessions": sessions()}
        given = authorization(scope)  # two Authorization headers count as none here
        if isinstance(given, bytes) and hmac.compare_digest(given, expected):
            answer |= {"workspace": workspace, "version": __version__}
        body = json.dumps(answer).encode()
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"content-type", b"application/json"), (b"cache-control", b"no-store"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})

    return health


def session_counter(server: Any) -> Callable[[], int]:
    """How many streamable-HTTP sessions the SDK's session manager holds (0 if this SDK keeps them elsewhere)."""

    def count() -> int:
        try:
            return len(server.session_manager._server_instances)
        except (AttributeError, RuntimeError, TypeError):
            return 0

    return count


def interrupt_shells(dispatcher: Dispatcher) -> int:
    """Ctrl-C for every topic's running shell command; how many were running."""
    stopped = 0
    for session in list(dispatcher.sessions.values()):
        shell = session.bash
        if shell is not None and shell.interrupt():
            stopped += 1
    return stopped
