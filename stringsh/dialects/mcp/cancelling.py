"""A tool call the client cancels ends its work, as Ctrl-C ends a command: `notifications/cancelled` naming it, or,
on the 2026-07-28 protocol's HTTP, the client closing the request's response stream (the SDK then cancels the
handler; the same when the client's session ends while the call runs).

The SDK stops waiting for the handler and never answers a cancelled request; the work runs on a worker thread, so
stopping it is ours to do (`Job`):
- a shell command running in the connection's topic (`bash`, `!cmd`) gets the terminal's Ctrl-C
  (`ShellSession.interrupt`, the REPL's and the daemon's); a command that had not started yet when the cancel came
  is never started (`Job.check` before the work, and the interrupt is tried again until the work ends, so a command
  starting in between is caught too);
- an engine operation is not started, or, when it was already under way, its change sets are reverted once it is
  over (an operation is one change set: a multi-file patch is put back whole, never half);
- the handler returns as soon as the work's thread is free, so the connection's next call does not wait behind it.
The request's audit record says `CANCELLED`."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

from stringsh.errors import StringError

if TYPE_CHECKING:
    from stringsh.dispatcher import Dispatcher
    from stringsh.workspace import Workspace

T = TypeVar("T")
W = TypeVar("W")

log = logging.getLogger("stringsh.mcp")

#: The audit outcome of a cancelled call.
CANCELLED = "CANCELLED"
#: Seconds between tries to interrupt a command that was not running yet when the cancel came.
RETRY = 0.05


def cancelled() -> StringError:
    return StringError(CANCELLED, "The client cancelled this call", "Nothing was changed; call again to run it.")


class Turns:
    """Which job of a topic may run String Commands there now: one at a time (the Dispatcher runs one request
    per topic anyway), so the shell command a cancelled job interrupts is its own, never the next call's."""

    def __init__(self) -> None:
        self.lock = threading.Condition()
        self.holders: dict[str, Job] = {}

    @contextmanager
    def turn(self, job: Job) -> Iterator[None]:
        with self.lock:
            self.lock.wait_for(lambda: job.topic not in self.holders or job.stop.is_set())
            job.check()  # cancelled while waiting: never started
            self.holders[job.topic] = job
        try:
            yield
        finally:
            with self.lock:
                self.holders.pop(job.topic, None)
                self.lock.notify_all()

    def interrupt(self, job: Job, shell: Any) -> bool:
        """Ctrl-C for the topic's running command when it is `job`'s; whether it was sent."""
        with self.lock:
            self.lock.notify_all()  # a job waiting for its turn sees it was cancelled
            return self.holders.get(job.topic) is job and shell is not None and bool(shell.interrupt())


TURNS = Turns()
_current = threading.local()


class Job:
    """One tool call's work on its worker thread, and how to stop it."""

    def __init__(self, dispatcher: Dispatcher | None, topic: str) -> None:
        self.dispatcher = dispatcher
        self.topic = topic
        #: Set (from the event loop) when the client cancels.
        self.stop = threading.Event()
        #: Set (by the worker thread) when the work is over, whatever its end.
        self.done = threading.Event()
        #: Whether a cancelled call's changes were put back already (settle).
        self.settled = False

    def check(self) -> None:
        """Refuse to start work the client cancelled already."""
        if self.stop.is_set():
            raise cancelled()

    def guarded(self, work: Callable[[W], T]) -> Callable[[W], T]:
        """`work`, not started when the client cancelled before it could start; String Commands it runs take
        the topic's turn (`commands_turn`)."""

        def checked(call: W) -> T:
            self.check()
            _current.job = self
            try:
                return work(call)
            finally:
                _current.job = None

        return checked

    def cancel(self) -> None:
        """The client cancelled: no new work starts, and the topic's running shell command gets Ctrl-C. Once."""
        if self.stop.is_set():
            return
        self.stop.set()
        if not self.done.is_set():
            threading.Thread(target=self._interrupt, name="stringsh-mcp-cancel", daemon=True).start()

    def _interrupt(self) -> None:
        """Ctrl-C for this job's shell command, tried until it lands or the work is over (a command may start
        right after the cancel came, before the work saw it)."""
        while not self.done.is_set():
            session = self.dispatcher.sessions.get(self.topic) if self.dispatcher is not None else None
            if TURNS.interrupt(self, session.bash if session is not None else None):
                return
            self.done.wait(RETRY)

    def bind(self, ws: Workspace, asked: Any) -> None:
        """The request the work runs in (its change sets are what a cancel puts back)."""
        self.ws = ws
        self.asked = asked

    def settle(self) -> None:
        """Inside the request, once the work is over (and before the topic's next call may run): a cancelled
        call's change sets reverted, newest first (one operation is one change set: put back whole), and its
        record marked CANCELLED. Once."""
        asked = getattr(self, "asked", None)
        if not self.stop.is_set() or asked is None or self.settled:
            return
        self.settled = True
        for change in reversed(list(asked.changes)):
            try:
                self.ws.revert(change, topic=self.topic)
            except StringError as exc:  # a file changed again since: the change stays, as /revert would say
                log.warning("stringsh mcp: cancelled call's change %s not reverted (%s)", change, exc.text)
        asked.fail(CANCELLED)


@contextmanager
def commands_turn() -> Iterator[None]:
    """Around a String Command a tool's work runs in its topic: the topic's turn for the current job (none
    outside a job: tests of a tool's work)."""
    job: Job | None = getattr(_current, "job", None)
    if job is None:
        yield
        return
    with TURNS.turn(job):
        try:
            yield
        finally:
            job.settle()


async def run_job(request: Any, tool: str, job: Job, answer: Callable[..., T], *args: Any) -> T:
    """`answer(*args)` on a worker thread, with progress sent meanwhile when the client asked for it
    (progress.py). The client's cancel reaches `job` at once, whichever way it comes: `notifications/cancelled`
    (the SDK sets the request's `cancel_requested` as it cancels the handler) or the handler's own cancellation
    (the client closed the request's stream on 2026-07-28 HTTP, or its session ended). The thread's work always
    runs to its end (a shielded wait), so the handler then waits only for the interrupted work to be over; the SDK
    drops its reply."""
    import anyio
    import anyio.to_thread

    from stringsh.dialects.mcp.progress import progress_token, report

    asked_to_stop = getattr(getattr(request.session, "_request_outbound", None), "cancel_requested", None)
    answered = False

    async def watch() -> None:
        try:
            if asked_to_stop is not None:
                await asked_to_stop.wait()
            else:
                await anyio.sleep_forever()
        finally:  # the client's cancel, or the handler cancelled: unless the call was answered, stop its work
            if not answered:
                job.cancel()

    async with anyio.create_task_group() as group:
        group.start_soon(watch)
        if progress_token(request) is not None:
            group.start_soon(report, request, tool)
        try:
            return await anyio.to_thread.run_sync(answer, *args)  # the thread's work always ends (shielded)
        finally:
            answered = True
            group.cancel_scope.cancel()
