"""A file past the read limit is shown in windows, and its reply says of how many lines: counting them costs a read
of the whole file. The count is recorded with the file's stat identity (as the identity cache records a hash,
render/cache.py) and trusted only for a file opened with exactly that identity: then only the window is read. A
change gives another identity (ctime moves on whatever mtime is put back), a racy file records nothing, and a
corrupt or moved entry is a miss. `RACY_NS` is 0 where a file written just before must be trusted at once."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from stringsh.dispatcher import Dispatcher
from stringsh.render import cache as cache_module
from stringsh.render.cache import IDENTITY_VERSION
from stringsh.workspace import WindowRequest, Workspace

LIMIT = 4096
NOTE = ("[window] Lines 1-400 of {total} ({size} bytes: past the read limit, so it is shown in windows). Read on: "
        "/open log.txt --from 401")


def log_workspace(tmp_path: Path, lines: int = 120_000) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "stringsh.toml").write_text(f"[limits]\nmax_read_bytes = {LIMIT}\n")
    (ws / "log.txt").write_text("".join(f"line {n:06d}\n" for n in range(lines)))
    return ws


def note(ws: Path) -> str:
    """The `[window]` line of `/open log.txt` in a new dispatcher."""
    dispatcher = Dispatcher(ws)
    try:
        reply = dispatcher.execute("/open log.txt")
        assert reply.ok, reply.text
        return reply.text.rsplit("\n", 1)[1]
    finally:
        dispatcher.close()


def counts(ws: Path) -> list[Path]:
    return sorted((ws / ".stringsh" / "cache" / "index").glob(f"*.l{IDENTITY_VERSION}.idx"))


def cache_of(ws: Path) -> cache_module.IndexCache:
    from stringsh.documents.state import make_index_cache

    return make_index_cache(Workspace(ws))


@pytest.fixture
def trusted_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cache_module, "RACY_NS", 0)


@pytest.mark.usefixtures("trusted_at_once")
def test_a_count_is_trusted_for_exactly_the_file_it_was_counted_from(tmp_path: Path) -> None:
    ws = log_workspace(tmp_path)
    size = (ws / "log.txt").stat().st_size
    assert note(ws) == NOTE.format(total=120_000, size=size) and len(counts(ws)) == 1
    identity, total = cache_of(ws).lookup_lines("log.txt")  # type: ignore[misc]
    assert total == 120_000
    workspace = Workspace(ws)
    try:  # for that identity the engine reads only as far as the window (a chunk of 1 MiB); for another, it all
        trusted = workspace.read_window(WindowRequest("log.txt", 0, 400, LIMIT, None, (identity, total)))
        counted = workspace.read_window(WindowRequest("log.txt", 0, 400, LIMIT, None, ((0, 0, 0, 0, 0), 7)))
    finally:
        workspace.close()
    assert trusted.lines == counted.lines and trusted.identity == identity
    assert (trusted.total_lines, counted.total_lines) == (120_000, 120_000)
    assert trusted.scanned < size == counted.scanned
    # The count recorded is what the reply shows while the file keeps its identity (a planted one, signed with the
    # user's key, shows it: nothing counts the file again) ...
    assert cache_of(ws).put_lines("log.txt", identity, 999_999, time.time_ns())
    assert note(ws) == NOTE.format(total=999_999, size=size)
    # ... and a change, even to the same size with the old mtime put back, is counted afresh.
    before = os.stat(ws / "log.txt")
    (ws / "log.txt").write_text((ws / "log.txt").read_text().replace("line 000001\n", "line\n000001\n"))
    os.utime(ws / "log.txt", ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (ws / "log.txt").stat().st_size == size
    assert note(ws) == NOTE.format(total=120_001, size=size)
    (ws / "log.txt").write_text("".join(f"line {n:06d}\n" for n in range(130_000)))
    assert note(ws) == NOTE.format(total=130_000, size=(ws / "log.txt").stat().st_size)


def test_a_file_changed_within_the_racy_window_records_no_count(tmp_path: Path) -> None:
    ws = log_workspace(tmp_path)  # just written: its ctime is within 2 s of any read now
    assert note(ws) == NOTE.format(total=120_000, size=(ws / "log.txt").stat().st_size)
    assert counts(ws) == []


@pytest.mark.usefixtures("trusted_at_once")
def test_a_corrupt_or_moved_count_entry_is_a_miss(tmp_path: Path) -> None:
    ws = log_workspace(tmp_path)
    first = note(ws)
    (entry,) = counts(ws)
    good = entry.read_bytes()
    moved = good[:32] + good[32:].replace(b"log.txt", b"lag.txt")  # (its signature was over the other path)
    for planted in [b"\x00garbage", good[:-3], bytes(32) + good[32:], moved]:
        entry.write_bytes(planted)
        assert cache_of(ws).lookup_lines("log.txt") is None
        assert note(ws) == first
        assert entry.read_bytes() != planted  # counted again, and recorded again
