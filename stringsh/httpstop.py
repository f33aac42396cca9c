"""A loopback HTTP server's graceful stop (`stringsh mcp --http`, `stringsh web`).

SIGTERM or SIGINT: stop accepting connections, let the requests in flight finish (up to a grace period; then
`on_overdue`, and `after_overdue` more seconds), then return, so that the caller closes the workspace (journal
closed, audit records flushed) and exits 0. uvicorn would raise the signal again once it stopped, which kills the
process before any of that: here it is not raised again.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from typing import TYPE_CHECKING

import uvicorn

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from types import FrameType

    from stringsh.httpguard import App, Receive, Scope, Send


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
    `on_overdue()` runs (the MCP server interrupts its shells) and the requests get `after_overdue` more seconds.
    `on_signal(name)` runs once, on a thread of its own, when the first signal arrives."""

    def __init__(self, config: uvicorn.Config, *, grace: float, busy: Callable[[], int],
                 on_signal: Callable[[str], None], on_overdue: Callable[[], None], after_overdue: float = 3.0) -> None:
        from sse_starlette.sse import AppStatus

        AppStatus.disable_automatic_graceful_drain()
        super().__init__(config)
        self.grace = grace
        self.busy = busy
        self.on_signal = on_signal
        self.on_overdue = on_overdue
        self.after_overdue = after_overdue
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
            self._settle(self.after_overdue)
        AppStatus.should_exit = True  # now end the event streams left (the clients' notification streams)

    def _settle(self, seconds: float) -> bool:
        """Wait up to `seconds` for the POSTs under way to end; True if they did."""
        deadline = time.monotonic() + seconds
        while self.busy() and time.monotonic() < deadline and not self.stopped.is_set():
            time.sleep(0.05)
        return not self.busy()
