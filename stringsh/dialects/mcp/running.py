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

import contextlib
import json
import signal
import threading
import time
from typing import TYPE_CHECKING, Any

import uvicorn

from stringsh import __version__
from stringsh.dialects.mcp.bounds import authorization

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from types import FrameType

    from stringsh.dialects.mcp.logjson import App, Receive, Scope, Send
    from stringsh.dispatcher import Dispatcher

HEALTH_PATH = "/healthz"
#: Seconds the calls in flight get to finish after SIGTERM before running shell commands are interrupted.
GRACE = 10.0
#: Seconds an interrupted shell command then gets to send its reply.
SHELL_STOP = 3.0


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


class InFlight:
    """Counts the POST requests under way (a tool call is one, its reply streamed back on the same request)."""

    def __init__(self) -> None:
        self.count = 0

    def __call__(self) -> int:
        return self.count

    def wrap(self, app: App) -> App:
        async def counted(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http" or scope.get("method") != "POST":
                await app(scope, receive, send)
                return
            self.count += 1  # the event loop's thread only; the shutdown thread just reads it
            try:
                await app(scope, receive, send)
            finally:
                self.count -= 1

        return counted


class GracefulServer(uvicorn.Server):
    """uvicorn's server, stopping on SIGTERM/SIGINT without raising the signal again afterwards.

    sse-starlette would end every event stream at once when uvicorn stops, a tool call's reply among them: its
    drain is held back until `busy()` (the POSTs under way) is 0, or `grace` seconds passed, after which
    `on_overdue()` interrupts the shells and their replies get `SHELL_STOP` more seconds. `on_signal(name)` runs
    once, on a thread of its own, when the first signal arrives."""

    def __init__(self, config: uvicorn.Config, *, grace: float, busy: Callable[[], int],
                 on_signal: Callable[[str], None], on_overdue: Callable[[], None]) -> None:
        from sse_starlette.sse import AppStatus

        AppStatus.disable_automatic_graceful_drain()
        super().__init__(config)
        self.grace = grace
        self.busy = busy
        self.on_signal = on_signal
        self.on_overdue = on_overdue
        self.stopped = threading.Event()
        self._watchdog: threading.Thread | None = None

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        handled = (signal.SIGINT, signal.SIGTERM)
        original = {sig: signal.signal(sig, self.handle_exit) for sig in handled}
        try:
            yield
        finally:
            self.stopped.set()
            for sig, handler in original.items():
                signal.signal(sig, handler)

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        super().handle_exit(sig, frame)
        if self._watchdog is None:  # no I/O inside a signal handler: the thread says so and keeps the time
            self._watchdog = threading.Thread(target=self._watch, args=(signal.Signals(sig).name,),
                                              name="stringsh-shutdown", daemon=True)
            self._watchdog.start()

    def _watch(self, name: str) -> None:
        from sse_starlette.sse import AppStatus

        self.on_signal(name)
        if not self._settle(self.grace):
            self.on_overdue()
            self._settle(SHELL_STOP)
        AppStatus.should_exit = True  # now end the event streams left (the clients' notification streams)

    def _settle(self, seconds: float) -> bool:
        """Wait up to `seconds` for the POSTs under way to end; True if they did."""
        deadline = time.monotonic() + seconds
        while self.busy() and time.monotonic() < deadline and not self.stopped.is_set():
            time.sleep(0.05)
        return not self.busy()
