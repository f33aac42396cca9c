"""The watcher flags outside changes: in-place writes, atomic renames over the file, deletes; and stops cleanly."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from stringsh.render.watch import Watcher, WatchHandle

WAIT = 10  # seconds to wait for an event; a correct run sees it in milliseconds


@pytest.fixture
def watch():  # type: ignore[no-untyped-def]
    """A watcher of this test's own (each dispatcher owns one); its observer stops at the end."""
    watcher = Watcher()
    yield watcher
    watcher.stop()


def ready(handle: WatchHandle) -> None:
    """Wait until the background setup has scheduled the folder."""
    for _ in range(500):
        if handle.scheduled and os.path.dirname(handle.path) in handle.owner._dirs:
            return
        handle.changed.wait(0.01)
    raise AssertionError("watch was never scheduled")


def test_in_place_write_sets_the_flag(watch: Watcher, tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("a\n")
    handle = watch.watch(str(doc))
    ready(handle)
    (tmp_path / "other.md").write_text("unrelated\n")
    doc.write_text("b\n")
    assert handle.changed.wait(WAIT)
    handle.close()


def test_rename_over_the_file_counts_by_destination(watch: Watcher, tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("a\n")
    handle = watch.watch(str(doc))
    ready(handle)
    tmp = tmp_path / ".doc.md.tmp"
    tmp.write_text("b\n")
    handle.changed.clear()
    os.replace(tmp, doc)
    assert handle.changed.wait(WAIT)
    handle.close()


def test_two_handles_share_one_folder_watch_until_both_close(watch: Watcher, tmp_path: Path) -> None:
    a, b = tmp_path / "a.md", tmp_path / "b.md"
    a.write_text("a")
    b.write_text("b")
    ha, hb = watch.watch(str(a)), watch.watch(str(b))
    ready(ha)
    ready(hb)
    assert watch._dirs[str(tmp_path.resolve())][1] == 2
    ha.close()
    assert watch._dirs[str(tmp_path.resolve())][1] == 1
    b.unlink()
    assert hb.changed.wait(WAIT)
    assert not ha.changed.is_set()
    hb.close()
    assert str(tmp_path.resolve()) not in watch._dirs


def test_missing_folder_is_not_an_error(watch: Watcher, tmp_path: Path) -> None:
    handle = watch.watch(str(tmp_path / "nope" / "doc.md"))
    handle.close()


def test_watching_while_events_flow_never_deadlocks(watch: Watcher, tmp_path: Path) -> None:
    """watchdog holds its own lock while it calls us; opening and closing watches meanwhile must not hang."""
    import threading

    files = [tmp_path / f"f{i}.md" for i in range(8)]
    for f in files:
        f.write_text("x")

    def churn() -> None:
        for round_ in range(30):
            handles = [watch.watch(str(f)) for f in files]
            for f in files:
                f.write_text(f"{round_}")
            for handle in handles[::2]:
                handle.close()
            if round_ % 10 == 0:
                ready(handles[1])
            for handle in handles[1::2]:
                handle.close()

    worker = threading.Thread(target=churn, daemon=True)
    worker.start()
    worker.join(timeout=120)
    assert not worker.is_alive(), "watch/close hung while events were being delivered"
    last = watch.watch(str(files[0]))
    ready(last)
    files[0].write_text("final")
    assert last.changed.wait(WAIT)
    last.close()
