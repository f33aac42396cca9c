"""A topic shell's sandbox dies with stringsh, however stringsh dies: it is started from one thread that lives as
long as the process.

bwrap's `--die-with-parent` has the kernel kill the sandbox when its parent goes (PR_SET_PDEATHSIG), and a pid
namespace ends with its first process, background jobs included. Linux counts the *thread* that forked as the
parent, though, and the threads of a daemon, an MCP server or a web server that start topic shells end when idle:
so every topic shell is started here. A one-shot sandbox (`/exec`, an action, git) needs none of this: the thread
that starts it waits for its end. Without it, a stringsh killed (SIGTERM, SIGKILL, a crash) while a topic shell had
a background job left that job and its sandbox running, unseen, for as long as the job ran.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import TypeVar

T = TypeVar("T")

_lock = threading.Lock()
#: The starting thread's queue, and the process it belongs to (a forked child has no such thread).
_jobs: tuple[int, queue.SimpleQueue[tuple[Callable[[], object], Future[object]]]] | None = None


def _serve(jobs: queue.SimpleQueue[tuple[Callable[[], object], Future[object]]]) -> None:
    while True:
        start, future = jobs.get()
        if future.set_running_or_notify_cancel():
            try:
                future.set_result(start())
            except BaseException as exc:  # handed to the caller, whatever it is
                future.set_exception(exc)


def start_for_life(start: Callable[[], T], discard: Callable[[T], object]) -> T:
    """`start()` run on the process's starting thread, and its result; `discard(result)` ends what it started if
    the caller stopped waiting (Ctrl-C) before it came."""
    global _jobs
    with _lock:
        if _jobs is None or _jobs[0] != os.getpid():
            _jobs = (os.getpid(), queue.SimpleQueue())
            threading.Thread(target=_serve, args=(_jobs[1],), name="stringsh-shell-starter", daemon=True).start()
        jobs = _jobs[1]
    future: Future[object] = Future()
    jobs.put((start, future))
    try:
        return future.result()  # type: ignore[return-value]
    except BaseException:
        if not future.cancel():  # under way (or it failed: then there is nothing to end)

            def end(done: Future[object]) -> None:
                if done.exception() is None:
                    discard(done.result())  # type: ignore[arg-type]

            future.add_done_callback(end)
        raise
