"""The live feed: one follower of the audit log per server, however many pages watch it.

Every `POLL` seconds the follower asks the engine for the records written since its last read (by position: a stat
when nothing is new, never a re-read of the log), and hands each page's queue one batch: the new records, the
change sets they name (and those they reverted: their state changed), the clients' rows and the health, so a page
shows a record a poll after it is written. A page that falls too far behind is told to load afresh (`resync`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from typing import TYPE_CHECKING, Any

from stringsh.web import views

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from stringsh.workspace import AuditSpot, Workspace

#: Seconds between two looks at the audit log.
POLL = 0.1
#: Batches a page may have waiting before it is told to load afresh.
QUEUE = 64
#: Records read back at start to know the recent clients.
RECENT = 2000


class Feed:
    """The audit log's follower and the pages listening to it."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.listeners: set[asyncio.Queue[str]] = set()
        self.seen: dict[tuple[str, str], dict[str, Any]] = {}
        self.spot: AuditSpot | None = None
        self.lock = threading.Lock()  # `seen` is counted on the follower's thread and read on the requests'
        self._task: asyncio.Task[None] | None = None

    def start_reading(self) -> None:
        """Where following starts, and the recent clients (run once, before serving: blocking reads)."""
        self.spot = self.ws.audit_end()
        entries, _ = self.ws.audit_before(None, RECENT)
        with self.lock:
            for entry in reversed(entries):
                shown = views.record(entry, self.ws.redact)
                if shown is not None:
                    views.note_request(self.seen, shown)

    async def run(self) -> None:
        """Follow the log until cancelled."""
        import anyio

        while True:
            try:
                batch = await anyio.to_thread.run_sync(self.poll)
            except Exception as exc:  # the log unreadable for a moment (a rotation, a full disk): said, and retried
                batch = {"type": "problem", "text": f"the audit log could not be read: {exc}"}
            if batch is not None:
                self.publish(json.dumps(batch))
            await asyncio.sleep(POLL)

    def poll(self) -> dict[str, Any] | None:
        """One look at the log: the batch to send, None when nothing was written."""
        if self.spot is None:
            self.spot = self.ws.audit_end()
        entries, self.spot = self.ws.audit_since(self.spot)
        records = [shown for shown in (views.record(entry, self.ws.redact) for entry in entries) if shown]
        if not records:
            return None
        ids: set[int] = set()
        with self.lock:
            for shown in records:
                views.note_request(self.seen, shown)
                ids.update(shown["changes"])
        return {"type": "batch", "records": records, "changes": self.rows(ids), "clients": self.clients(),
                "health": views.health(self.ws.health())}

    def clients(self) -> list[dict[str, Any]]:
        with self.lock:
            seen = {key: value | {"minutes": {minute: list(counts) for minute, counts in
                                              value.get("minutes", {}).items()}}
                    for key, value in self.seen.items()}
        return views.clients(self.ws, seen)

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

    def publish(self, data: str) -> None:
        for queue in list(self.listeners):
            try:
                queue.put_nowait(data)
            except asyncio.QueueFull:  # too far behind: what it has waiting is dropped, and it loads afresh
                while not queue.empty():
                    queue.get_nowait()
                queue.put_nowait(json.dumps({"type": "resync"}))

    @contextlib.asynccontextmanager
    async def listening(self) -> AsyncIterator[asyncio.Queue[str]]:
        queue: asyncio.Queue[str] = asyncio.Queue(QUEUE)
        self.listeners.add(queue)
        try:
            yield queue
        finally:
            self.listeners.discard(queue)

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self.run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
