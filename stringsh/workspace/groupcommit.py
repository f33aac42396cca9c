"""Group commit: writers of one process waiting for the workspace lock share its hold, and their fsyncs.

Every change set pays a journal commit, an fsync of the journal and of its new files, a rename and an fsync of the
folder, all under the workspace lock. Threads of one process that write at once (a daemon's topics, an MCP server's
sessions) would each wait for the lock and pay all of it in turn. Here they queue instead: the first becomes the
leader, takes the lock once and commits every change queued by then as one batch (ops/grouped.py: changes of one
file become a chain of change sets written in one journal transaction, one seal, one rename, one folder fsync),
while the followers wait for their own outcome. When the batch is done, the first writer that queued meanwhile
leads the next one; so no writer waits for more than the batch before its own.

A follower's change is computed on the leader's thread inside the follower's own request context (a copy of its
`contextvars`): the journal's attribution (client, topic, front end, command line) and the audit notes stay the
follower's. Processes do not share batches: a change is computed from the file as it is under the lock, by code
only its own process holds (docs/change-sets.md says why, and what crosses processes instead).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from contextvars import Context, copy_context
from typing import Generic, TypeVar

T = TypeVar("T")


class Waiting(Generic[T]):
    """One writer's change in the queue: computed and committed by whichever thread leads its batch."""

    __slots__ = ("context", "done", "error", "lead", "result", "work")

    def __init__(self, work: T) -> None:
        self.work = work
        self.context: Context = copy_context()  # the writer's request: attribution and audit notes
        self.done = False
        self.lead = False
        self.result: object = None
        self.error: BaseException | None = None


class GroupCommit(Generic[T]):
    """The queue of one workspace's writers in this process. The leader takes `hold` (the workspace lock) and then
    the batch, so every writer that queued while it waited for the lock is in it; `commit` commits the batch,
    setting each one's `result` or `error` (an exception it raises is every unfinished one's error), and may return
    a step to finish with once the lock is let go."""

    def __init__(self, commit: Callable[[list[Waiting[T]]], Callable[[], None] | None],
                 hold: Callable[[], AbstractContextManager[object]]) -> None:
        self._commit = commit
        self._hold = hold
        self._cond = threading.Condition()
        self._queue: list[Waiting[T]] = []
        self._leading = False

    @property
    def queued(self) -> int:
        """Writers queued and not yet taken into a batch."""
        with self._cond:
            return len(self._queue)

    def run(self, work: T) -> object:
        """Queue `work`, wait until a batch holding it is committed (leading that batch when its turn comes), and
        return its result or raise its error."""
        waiting = Waiting(work)
        with self._cond:
            self._queue.append(waiting)
            if self._leading:
                while not (waiting.done or waiting.lead):
                    self._cond.wait()
            else:
                self._leading = waiting.lead = True
        if not waiting.done:
            self._lead()
        if waiting.error is not None:
            raise waiting.error
        return waiting.result

    def _lead(self) -> None:
        """Commit everything queued now (this thread's own change first), then hand the lead to the next writer."""
        batch: list[Waiting[T]] = []
        try:
            with self._hold():
                with self._cond:
                    batch, self._queue = self._queue, []
                after = self._commit(batch)
            if after is not None:  # the rest of the batch's commit, with the lock let go
                after()
        except BaseException as exc:
            if not batch:  # the lock was refused (BUSY, a journal that cannot be used): this batch's writers
                with self._cond:
                    batch, self._queue = self._queue, []
            for waiting in batch:
                if waiting.result is None and waiting.error is None:
                    waiting.error = exc
        finally:
            with self._cond:
                for waiting in batch:
                    waiting.done = True
                if self._queue:
                    self._queue[0].lead = True
                else:
                    self._leading = False
                self._cond.notify_all()
