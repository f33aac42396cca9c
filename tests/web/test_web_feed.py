"""The page's feed in this process (stringsh/web/feed.py) on a real workspace and its real audit log: the clients'
request counts cover the whole kept log (the newest records counted before serving, the older ones after), and a
new record's batch brings the clients' rows when they are due (at most once a second), and the health only when
it changed."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from stringsh.dispatcher import Dispatcher
from stringsh.web import feed as feed_module
from stringsh.web.feed import Feed, pause_after
from stringsh.workspace.clients import Client


def counts(feed: Feed) -> dict[tuple[str, str], tuple[int, int, int, str]]:
    return {(row["client"], row["topic"]): (row.get("requests", 0), row.get("refusals", 0), row["changes"],
                                             row.get("last_op", "")) for row in feed.clients()}


def test_the_clients_counts_cover_the_whole_log(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(feed_module, "RECENT", 3)
    monkeypatch.setattr(feed_module, "OLDER_PAGE", 2)  # the older records read in several calls
    alpha, beta = (Dispatcher(ws, client=Client(name, True)) for name in ("alpha", "beta"))
    try:
        alpha.execute("/write a.txt <<EOF\na\nEOF")
        for n in range(4):
            alpha.execute(f"/open missing-{n}.txt")  # refused: NOT_FOUND
        beta.execute("/write b.txt <<EOF\nb\nEOF", topic="t")
        alpha.execute("/open a.txt")
        beta.execute("/open b.txt", topic="t")
        feed = Feed(alpha.workspace)
        feed.start_reading()
        assert counts(feed) == {("alpha", "main"): (1, 0, 1, "/open"), ("beta", "t"): (2, 0, 1, "/open")}
        feed.count_older()
        assert counts(feed) == {("alpha", "main"): (6, 4, 1, "/open"), ("beta", "t"): (2, 0, 1, "/open")}
        assert feed.older is None and feed.clients_due
        first = feed.poll()  # the counts that came in are sent to the pages, with the health (none sent yet)
        assert first is not None and first["records"] == [] and first["health"]["lock"]["held"] is False
        assert [row["requests"] for row in first["clients"]] == [2, 6]  # the latest first: beta opened last
        assert feed.poll() is None  # nothing new

        beta.execute("/write --force b.txt <<EOF\nc\nEOF", topic="t")
        batch = feed.poll()  # within a second of the last rows: the record and its change, not the rows again
        assert batch is not None and [record["op"] for record in batch["records"]] == ["/write"]
        assert [change["id"] for change in batch["changes"]] == [3]
        assert "clients" not in batch and "health" not in batch

        feed.clients_at -= feed_module.SLOW  # a second on: the rows are due with the next record
        feed.journal_at -= feed_module.SLOW
        beta.execute("/open b.txt", topic="t")
        batch = feed.poll()
        assert batch is not None and [record["op"] for record in batch["records"]] == ["/open"]
        rows = {(row["client"], row["topic"]): row for row in batch["clients"]}
        assert (rows[("beta", "t")]["requests"], rows[("beta", "t")]["changes"]) == (4, 2)
        assert rows[("alpha", "main")]["requests"] == 6 and "health" not in batch
    finally:
        alpha.close()
        beta.close()


def test_a_page_that_joins_gets_the_clients_and_the_health_in_the_next_batch(ws: Path) -> None:
    alpha = Dispatcher(ws, client=Client("alpha", True))

    async def join(feed: Feed) -> tuple[dict[str, object] | None, bytes]:
        async with feed.listening() as queue:
            batch = feed.poll()
            assert batch is not None
            feed.publish(feed_module.event(batch))
            return batch, queue.get_nowait()

    try:
        alpha.execute("/write a.txt <<EOF\na\nEOF")
        feed = Feed(alpha.workspace)
        feed.start_reading()
        assert feed.poll() is not None and feed.poll() is None  # the first batch; then nothing new
        batch, sent = asyncio.run(join(feed))
        assert batch is not None and batch["records"] == [] and batch["changes"] == []
        assert [(row["client"], row["changes"]) for row in batch["clients"]] == [("alpha", 1)]  # type: ignore
        assert batch["health"]["lock"]["held"] is False  # type: ignore[index]
        assert sent.startswith(b"event: batch\r\ndata: {") and sent.endswith(b"}\r\n\r\n")
        assert json.loads(sent.split(b"data: ", 1)[1]) == batch
        assert feed.poll() is None
    finally:
        alpha.close()


def test_a_steady_stream_of_records_is_sent_every_send_gap_and_a_lone_record_on_the_next_poll(ws: Path) -> None:
    """A batch of records that follows another is followed by a SEND_GAP pause (the pages get at most five batches a
    second); one that follows a quiet look, or any other batch, by POLL."""
    agent = Dispatcher(ws, client=Client("agent", True))
    try:
        feed = Feed(agent.workspace)
        feed.start_reading()
        first = feed.poll()  # the health, sent once: no records
        assert first is not None and first["records"] == []
        assert pause_after(first, steady=False) == pause_after(first, steady=True) == feed_module.POLL
        assert feed.poll() is None
        assert pause_after(None, steady=True) == feed_module.POLL
        agent.execute("/write a.txt <<EOF\na\nEOF")
        batch = feed.poll()
        assert batch is not None and [record["op"] for record in batch["records"]] == ["/write"]
        assert pause_after(batch, steady=False) == feed_module.POLL  # a lone record: the next one goes out soon
        assert pause_after(batch, steady=True) == feed_module.SEND_GAP  # a stream: at most five batches a second
        assert feed_module.POLL < feed_module.SEND_GAP <= 0.2  # a record is on the page within 300 ms, with room
    finally:
        agent.close()
