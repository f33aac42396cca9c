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
import time
from collections.abc import Callable, Hashable
from contextlib import AbstractContextManager
from contextvars import Context, copy_context
from typing import Generic, TypeVar

from stringsh.workspace.context import about_to_wait

T = TypeVar("T")
#: How long a batch's leader waits at most for the writers it expects (`GroupCommit._gather`): less than a batch's
#: syncs take.
GATHER_SECONDS = 0.003
#: A writer is expected when it last queued again within this long of its batch's end: a client that sends its
#: next change as soon as the last is answered (an agent thinking between calls takes far longer).
COMES_BACK_SECONDS = 0.010
#: Writers remembered at most (their last batch's end and how soon they came back); past it the memory starts again.
MAX_WRITERS = 1024


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
                 hold: Callable[[], AbstractContextManager[object]],
                 writer: Callable[[T], Hashable] | None = None) -> None:
        """`writer` names who queued a change (a topic): a leader gathers the writers expected back (`_gather`);
        without it, a batch is whoever queued while the lock was waited for."""
        self._commit = commit
        self._hold = hold
        self._writer = writer
        lock = threading.Lock()
        self._cond = threading.Condition(lock)
        self._queued = threading.Condition(lock)  # told when a writer queues (the leader gathering waits on it)
        self._queue: list[Waiting[T]] = []
        self._leading = False
        self._last: frozenset[Hashable] = frozenset()  # the writers of the last batch
        self._before: frozenset[Hashable] = frozenset()  # and of the one before it
        self._ended: dict[Hashable, float] = {}  # when each writer's last batch was committed
        self._back_in: dict[Hashable, float] = {}  # how soon after it each queued again

    @property
    def queued(self) -> int:
        """Writers queued and not yet taken into a batch."""
        with self._cond:
            return len(self._queue)

    def run(self, work: T) -> object:
        """Queue `work`, wait until a batch holding it is committed (leading that batch when its turn comes), and
        return its result or raise its error."""
        about_to_wait()  # for the batch ahead, the writers its batch gathers, its syncs: the front end may read on
        waiting = Waiting(work)
        with self._cond:
            self._queue.append(waiting)
            if self._writer is not None:
                who = self._writer(work)
                ended = self._ended.get(who)
                if ended is not None:
                    self._back_in[who] = time.monotonic() - ended
            self._queued.notify()
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

    @property
    def gathering(self) -> frozenset[Hashable]:
        """The writers the next leader waits for: those of the last two batches that came back quickly."""
        with self._cond:
            return self._expected()

    def _expected(self) -> frozenset[Hashable]:
        back_in = self._back_in
        return frozenset(who for who in self._last | self._before
                         if back_in.get(who, COMES_BACK_SECONDS + 1) <= COMES_BACK_SECONDS)

    def _gather(self) -> None:
        """(Holding `_cond`, and the workspace lock.) Wait, at most GATHER_SECONDS, until every writer expected has
        queued: one of the last two batches that, last time, queued again within COMES_BACK_SECONDS of its batch's
        end. Such writers (clients sending their next change as soon as the last is answered) come back while the
        batch after theirs commits; without this wait each batch would hold about half of them, and every batch
        pay the syncs for half. With it, one batch holds them all (PostgreSQL's commit_delay, bounded the same
        way). A lone writer never waits, nor does a batch of agents that think between calls; a writer that stopped
        costs at most two batches the wait."""
        if self._writer is None:
            return
        expected = self._expected()
        if len(expected) > 1:
            deadline = time.monotonic() + GATHER_SECONDS
            while True:
                missing = expected - {self._writer(waiting.work) for waiting in self._queue}
                left = deadline - time.monotonic()
                if not missing or left <= 0:
                    break
                self._queued.wait(left)
        self._before, self._last = self._last, frozenset(self._writer(waiting.work) for waiting in self._queue)

    def _ended_now(self, batch: list[Waiting[T]]) -> None:
        """(Holding `_cond`.) The batch's writers were answered now."""
        if self._writer is None:
            return
        if len(self._ended) >= MAX_WRITERS:
            self._ended.clear()
            self._back_in.clear()
        now = time.monotonic()
        for waiting in batch:
            self._ended[self._writer(waiting.work)] = now

    def _lead(self) -> None:
        """Commit everything queued now (this thread's own change first), then hand the lead to the next writer."""
        batch: list[Waiting[T]] = []
        try:
            with self._hold():
                with self._cond:
                    self._gather()
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
                self._ended_now(batch)
                for waiting in batch:
                    waiting.done = True
                if self._queue:
                    self._queue[0].lead = True
                else:
                    self._leading = False
                self._cond.notify_all()
