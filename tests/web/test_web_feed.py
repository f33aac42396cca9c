"""The page's feed in this process (stringsh/web/feed.py) on a real workspace and its real audit log: the clients'
request counts cover the whole kept log (the newest records counted before serving, the older ones after), and a
new record's batch brings the clients' rows."""

from __future__ import annotations

from pathlib import Path

import pytest

from stringsh.dispatcher import Dispatcher
from stringsh.web import feed as feed_module
from stringsh.web.feed import Feed
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
        first = feed.poll()  # the counts that came in are sent to the pages
        assert first is not None and first["records"] == []
        beta.execute("/write --force b.txt <<EOF\nc\nEOF", topic="t")
        batch = feed.poll()
        assert batch is not None and [record["op"] for record in batch["records"]] == ["/write"]
        assert [change["id"] for change in batch["changes"]] == [3]
        rows = {(row["client"], row["topic"]): row for row in batch["clients"]}
        assert (rows[("beta", "t")]["requests"], rows[("alpha", "main")]["requests"]) == (3, 6)
        assert batch["health"]["lock"]["held"] is False
    finally:
        alpha.close()
        beta.close()
