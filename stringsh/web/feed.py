"""The live feed: one follower of the audit log per server, however many pages watch it.

Every `POLL` seconds (every `SEND_GAP` under a steady stream of records) the follower asks the engine for the records
written since its last read (by position: a stat when nothing is new, never a re-read of the log), and hands each
page's queue one batch: the new records, the change sets they name (and those they reverted: their state changed),
the clients' rows and the health, so a page shows a record at most a `SEND_GAP` after it is written (a `POLL` after,
when it comes alone). A page that falls too far behind is told to load afresh (`resync`).

What is slower to read is read at most once per `SLOW` seconds: the clients' change counts and undo depths (one
query over every change set: read on every batch, up to ten times a second, it was the server's largest cost
while agents work) when records came since, and the health (degraded mode, the lock's holder, the disk). When records
come after a quiet second the counts are read at once, so a lone change shows with its count in the same batch;
under a steady stream they lag its records by a second at most, and a batch follows when they or the health change.

A batch carries the clients' rows only when they are due (at most once per `SLOW` seconds under a stream of
records, at once after a quiet second, and when the counts came in) and the health only when it changed: what a
page already shows is not sent again ten times a second to every page. Each batch is encoded as one server-sent
event once, however many pages take it (with ten pages open, encoding and sending the whole client table on every
batch was most of the server's time, and the server's bursts were what the agents paid for).

The clients' request counts cover the whole kept log: the newest `RECENT` records are counted before serving, the
older ones on a thread of their own once serving (a full log's 28,000: 1.2 s on the 2-core development machine at a
load average of 11), so the first page is never kept waiting for them; the clients' rows are sent again when they
are in.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from typing import TYPE_CHECKING, Any

from stringsh.web import views

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from stringsh.workspace import AuditSpot, ClientChanges, Workspace

#: Seconds between two looks at the audit log while it is quiet.
POLL = 0.1
#: Seconds after a batch of records that followed another before the next look: under a steady stream of records
#: the pages get a batch at most five times a second. Every batch wakes the pages' browser through its chain of
#: processes (network, shared worker, tab, compositor) and is drawn: with the feed in view, a tab drew a third less
#: at one batch per 250 ms than at ten a second. A record in a steady stream is sent about SEND_GAP after it is
#: written at most (room left under the page's 300 ms on a loaded machine); a lone one (after a look that found
#: nothing) within POLL.
SEND_GAP = 0.2
#: Seconds between two reads of the clients' change counts (when records came), and between two looks at the health.
SLOW = 1.0
#: Batches a page may have waiting before it is told to load afresh.
QUEUE = 64
#: Records counted before serving (the older ones are counted once serving).
RECENT = 2000
#: Records a read of the older log goes through per call (each call reads back at most its byte budget too).
OLDER_PAGE = 10_000


def brought_records(batch: dict[str, Any] | None) -> bool:
    return batch is not None and bool(batch.get("records"))


def pause_after(batch: dict[str, Any] | None, steady: bool) -> float:
    """Seconds until the next look at the log: SEND_GAP after a batch of records when the look before it brought
    records too (`steady`), POLL after anything else."""
    return SEND_GAP if steady and brought_records(batch) else POLL


class Feed:
    """The audit log's follower and the pages listening to it."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.listeners: set[asyncio.Queue[bytes]] = set()
        self.seen: dict[tuple[str, str], dict[str, Any]] = {}
        self.spot: AuditSpot | None = None
        self.older: AuditSpot | None = None  # where the records not yet counted end (None: all counted)
        self.lock = threading.Lock()  # `seen` and the rest are kept on the follower's threads, read on the requests'
        self.journal: list[ClientChanges] = []
        self.journal_at = -SLOW  # time.monotonic() of the last read of the change counts
        self.journal_due = False  # records came since that read
        self.clients_due = False  # the older records' counts came in since the last batch
        self.shown_health: dict[str, Any] | None = None  # the health as last read
        self.health_at = -SLOW
        self.clients_at = -SLOW  # time.monotonic() of the last batch that carried the clients' rows
        self.health_sent: object = None  # the health (as _steady sees it) the last batch carried
        self.joined = False  # a page came since the last batch: the next one carries the clients and the health
        self.lock_seen: tuple[int | None, float] | None = None  # the lock's holder, and since when each look saw it
        self._task: asyncio.Task[None] | None = None

    def start_reading(self) -> None:
        """Where following starts, the recent clients, their change counts (run once, before serving)."""
        self.spot = self.ws.audit_end()
        entries, self.older = self.ws.audit_before(self.spot, RECENT)
        with self.lock:
            for entry in reversed(entries):
                shown = views.record(entry, self.ws.redact)
                if shown is not None:
                    views.note_request(self.seen, shown)
        self.read_journal()

    def count_older(self) -> None:
        """Count the records older than the newest `RECENT` (on a thread of its own): no masking but of each client's
        name once, so a full log costs a parse per record."""
        older: dict[tuple[str, str], dict[str, Any]] = {}

        def count(line: str) -> bool:
            fields = views.counted(line)
            if fields is not None:
                views.note_request(older, fields)
            return False  # nothing is kept: the read goes on to its byte budget and says where it stopped

        spot = self.older
        try:
            while spot is not None:
                _, spot = self.ws.audit_before(spot, OLDER_PAGE, count)
        except Exception:  # the log unreadable (the server stopping, a file gone): the counts stay the recent ones
            return
        with self.lock:
            views.merge_counts(self.seen, older, self.ws.redact)
            self.older = None
            self.clients_due = True

    async def run(self) -> None:
        """Follow the log until cancelled."""
        import anyio

        steady = False  # the last look brought records
        while True:
            try:
                batch = await anyio.to_thread.run_sync(self.poll)
            except Exception as exc:  # the log unreadable for a moment (a rotation, a full disk): said, and retried
                batch = {"type": "problem", "text": f"the audit log could not be read: {exc}"}
            if batch is not None:
                self.publish(event(batch))
            await asyncio.sleep(pause_after(batch, steady))
            steady = brought_records(batch)

    def poll(self) -> dict[str, Any] | None:
        """One look at the log: the batch to send, None when nothing was written and nothing else changed."""
        if self.spot is None:
            self.spot = self.ws.audit_end()
        entries, self.spot = self.ws.audit_since(self.spot)
        records = [shown for shown in (views.record(entry, self.ws.redact) for entry in entries) if shown]
        ids: set[int] = set()
        with self.lock:
            for shown in records:
                views.note_request(self.seen, shown)
                ids.update(shown["changes"])
            self.journal_due = self.journal_due or bool(records)
            counted, self.clients_due = self.clients_due, False
            joined, self.joined = self.joined, False
        now = time.monotonic()
        read = self.journal_due and now - self.journal_at >= SLOW
        if read:
            self.read_journal()
        if now - self.health_at >= SLOW:
            self.health()
        health = _steady(self.shown_health)
        changed = joined or health != self.health_sent
        clients = joined or read or counted or (bool(records) and now - self.clients_at >= SLOW)
        if not (records or clients or changed):
            return None
        batch: dict[str, Any] = {"type": "batch", "records": records, "changes": self.rows(ids)}
        if clients:
            batch["clients"], self.clients_at = self.clients(), now
        if changed:
            batch["health"], self.health_sent = self.shown_health, health
        return batch

    def read_journal(self) -> None:
        rows = self.ws.change_clients()
        with self.lock:
            self.journal, self.journal_at, self.journal_due = rows, time.monotonic(), False

    def health(self) -> dict[str, Any]:
        """The health now, the lock's holder with since when every look saw it hold the lock."""
        state = self.ws.health()
        with self.lock:
            holder = (state.lock.pid, state.lock.program) if state.lock.held else None
            if holder is None:
                self.lock_seen = None
            elif self.lock_seen is None or self.lock_seen[0] != holder[0]:
                self.lock_seen = (holder[0], time.time())
            shown = views.health(state, self.ws.redact, None if self.lock_seen is None else self.lock_seen[1])
            self.shown_health, self.health_at = shown, time.monotonic()
        return shown

    def clients(self) -> list[dict[str, Any]]:
        with self.lock:
            seen = {key: value | {"minutes": {minute: list(counts) for minute, counts in
                                              value.get("minutes", {}).items()}}
                    for key, value in self.seen.items()}
            journal = self.journal
        return views.clients(journal, seen)

    def rows(self, ids: set[int]) -> list[dict[str, Any]]:
        """The change sets `ids` name, and the ones they revert (their state changed with them), newest first."""
        found: dict[int, dict[str, Any]] = {}
        todo = sorted(ids, reverse=True)
        while todo:
            change_id = todo.pop()
            if change_id in found:
                continue
            row = self.ws.change(change_id)
            if row is None:
                continue
            found[change_id] = views.change_row(row, self.ws.change_paths(change_id))
            if row.reverts is not None and row.reverts not in found:
                todo.append(row.reverts)
        return [found[key] for key in sorted(found, reverse=True)]

    def publish(self, data: bytes) -> None:
        for queue in list(self.listeners):
            try:
                queue.put_nowait(data)
            except asyncio.QueueFull:  # too far behind: what it has waiting is dropped, and it loads afresh
                while not queue.empty():
                    queue.get_nowait()
                queue.put_nowait(event({"type": "resync"}))

    @contextlib.asynccontextmanager
    async def listening(self) -> AsyncIterator[asyncio.Queue[bytes]]:
        """A page's queue of encoded events; its first batch carries the clients' rows and the health whatever the
        others were last sent."""
        queue: asyncio.Queue[bytes] = asyncio.Queue(QUEUE)
        self.listeners.add(queue)  # before the flag: the batch that clears it goes to this page too
        with self.lock:  # taken for a moment: the poll reads and clears it on its thread
            self.joined = True
        try:
            yield queue
        finally:
            self.listeners.discard(queue)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self.run())
        if self.older is not None:
            threading.Thread(target=self.count_older, name="stringsh-web-count", daemon=True).start()

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


def event(batch: dict[str, Any]) -> bytes:
    """One server-sent event of `batch`, encoded once for every page."""
    from sse_starlette.event import ServerSentEvent

    return ServerSentEvent(json.dumps(batch), event="batch").encode()


def _steady(health: dict[str, Any] | None) -> object:
    """What of the health is worth a batch: all but the free bytes' last 16 MiB (other processes write)."""
    if health is None:
        return None
    return {**health, "free_bytes": health["free_bytes"] >> 24}
