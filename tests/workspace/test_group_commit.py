"""Group commit (groupcommit.py, ops/grouped.py): threads of one process editing at once are committed as one batch,
each edit its own change set with its own attribution and undo; a batch killed at any point of its commit is
recovered all before or all after, with every change set of the chain settled."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from stringsh.workspace import Workspace
from stringsh.workspace.changes import sha256
from stringsh.workspace.journal import Journal
from tests.workspace.group_child import FILE, WRITERS, end_text, run_batch, start_text

REPO = Path(__file__).resolve().parents[2]
CHILD = Path(__file__).with_name("group_child.py")


def test_threads_editing_at_once_share_one_seal_and_each_keep_their_own_change_and_undo(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / FILE).write_text(start_text())
    seals: list[int] = []
    seal = Journal.seal
    monkeypatch.setattr(Journal, "seal", lambda self, cs, pool=None: (seals.append(cs), seal(self, cs, pool))[1])
    workspace = Workspace(tmp_path)
    try:
        workspace.write_text("warm.txt", "warm\n")
        seals.clear()
        ids = run_batch(workspace)
        assert len(ids) == WRITERS and ids == list(range(ids[0], ids[0] + WRITERS))
        assert seals == [ids[-1]]  # one journal seal for the four change sets
        assert (tmp_path / FILE).read_text() == end_text()
        rows = {row.id: row for row in workspace.history(10)}
        chain = [start_text()]
        for cs in ids:
            row = rows[cs]
            k = int(row.topic.rsplit("-", 1)[1])
            assert (row.state, row.kind, row.command) == ("done", "apply", f"/replace {FILE} (writer {k})")
            (file,) = workspace.journal.files(cs)
            after = chain[-1].replace(f"writer {k}: start", f"writer {k}: edited")
            assert workspace.journal.blob(file.prev_sha).decode() == chain[-1]  # its own previous bytes
            assert (file.path, file.new_sha) == (FILE, sha256(after.encode()))
            chain.append(after)
        for cs in reversed(ids):  # each topic's /undo takes back its own change, newest first
            row = rows[cs]
            outcome = workspace.undo(row.topic)
            assert outcome.reverted_id == cs
            (file,) = workspace.journal.files(cs)
            assert sha256((tmp_path / FILE).read_bytes()) == file.prev_sha
        assert (tmp_path / FILE).read_text() == start_text()
        assert workspace.journal.pending() == []
    finally:
        workspace.close()


@pytest.mark.parametrize(("point", "after"), [("seal", False), ("rename", False), ("dir_fsyncs", True),
                                              ("finish", True), ("second_finish", True), ("queued-queued", True),
                                              ("queued-rename", True), ("queued-second_finish", True)])
def test_a_batch_killed_at_any_point_is_recovered_all_before_or_all_after(tmp_path: Path, point: str,
                                                                         after: bool) -> None:
    (tmp_path / FILE).write_text(start_text())
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    crashed = subprocess.run([sys.executable, str(CHILD), str(tmp_path), point], capture_output=True, text=True,
                             env=env, timeout=120)
    assert crashed.returncode == 137, crashed.stderr
    workspace = Workspace.load(tmp_path)
    try:
        assert workspace.journal.pending() == []
        assert (tmp_path / FILE).read_text() == (end_text() if after else start_text())
        assert not [p for p in tmp_path.rglob("*") if p.name.startswith(".~stringsh-")]
        batch = [row for row in workspace.history(10) if row.topic.startswith("writer-")]
        assert len(batch) == WRITERS
        assert {row.state for row in batch} == {"done" if after else "rolled_back"}
        if after:  # rolled forward: each change still reverted byte for byte (its process, whose undo it was, is gone)
            for row in batch:  # newest first
                workspace.revert(row.id)
            assert (tmp_path / FILE).read_text() == start_text()
    finally:
        workspace.close()


def test_a_queued_chain_whose_temp_file_was_torn_is_rolled_back_and_nothing_is_overwritten(tmp_path: Path) -> None:
    """A power loss can leave a queued change's temp file short: its bytes no longer hash to its row, so the chain
    is rolled back (its writers were never answered) and the file keeps what it held."""
    (tmp_path / FILE).write_text(start_text())
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    crashed = subprocess.run([sys.executable, str(CHILD), str(tmp_path), "queued-queued"], capture_output=True,
                             text=True, env=env, timeout=120)
    assert crashed.returncode == 137, crashed.stderr
    (temp,) = [p for p in tmp_path.iterdir() if p.name.startswith(".~stringsh-")]
    temp.write_bytes(temp.read_bytes()[:10])
    workspace = Workspace.load(tmp_path)
    try:
        assert workspace.journal.pending() == [] and workspace.journal.queued() == []
        assert (tmp_path / FILE).read_text() == start_text()
        assert not temp.exists()
        batch = [row for row in workspace.history(10) if row.topic.startswith("writer-")]
        assert [row.state for row in batch] == ["rolled_back"] * WRITERS
    finally:
        workspace.close()



class _Hold:
    """A workspace lock stand-in: `held` is set each time a leader takes it, which waits for `go` first."""

    def __init__(self) -> None:
        import threading

        self.held, self.go = threading.Event(), threading.Event()

    def __call__(self):  # type: ignore[no-untyped-def]
        import contextlib

        @contextlib.contextmanager
        def holding():  # type: ignore[no-untyped-def]
            self.held.set()
            assert self.go.wait(60)
            yield

        return holding()



def _named_writers(monkeypatch: pytest.MonkeyPatch, gather: float,
                   comes_back: float = 600.0) -> tuple[object, _Hold, list[list[str]]]:
    """A GroupCommit whose changes are writers' names, each batch recorded, after two batches of A and B together
    (the second: both back within `comes_back` of the first's end, here a bound no machine misses)."""
    import threading

    from stringsh.workspace import groupcommit

    monkeypatch.setattr(groupcommit, "GATHER_SECONDS", gather)
    monkeypatch.setattr(groupcommit, "COMES_BACK_SECONDS", comes_back)
    batches: list[list[str]] = []

    def commit(batch: list) -> None:
        batches.append([waiting.work for waiting in batch])
        for waiting in batch:
            waiting.result = waiting.work

    hold = _Hold()
    group = groupcommit.GroupCommit(commit, hold, writer=lambda work: work)
    for _ in range(2):
        hold.held.clear()
        hold.go.clear()
        writers = [threading.Thread(target=group.run, args=(name,)) for name in ("A", "B")]
        writers[0].start()
        assert hold.held.wait(60)  # A leads, waiting for the lock: B queues behind it
        writers[1].start()
        while group.queued < 2:
            threading.Event().wait(0.001)
        hold.go.set()
        for thread in writers:
            thread.join()
    assert batches == [["A", "B"], ["A", "B"]]
    return group, hold, batches


def test_a_leader_gathers_the_writers_that_came_back_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A and B came back at once after their batch: the next leader, A, waits for B (here with a deadline that
    cannot pass) rather than committing alone, and the two share a batch again."""
    import threading

    group, hold, batches = _named_writers(monkeypatch, 600.0)
    assert group.gathering == frozenset({"A", "B"})
    hold.held.clear()
    alone = threading.Thread(target=group.run, args=("A",))
    alone.start()
    assert hold.held.wait(60)  # A holds the lock; B has not queued yet
    assert group.run("B") == "B"
    alone.join()
    assert batches[2:] == [["A", "B"]]


def test_writers_that_think_between_changes_are_not_waited_for(monkeypatch: pytest.MonkeyPatch) -> None:
    """Agents that take their time between two changes (here: longer than no time at all) are expected by no
    leader: A commits alone at once, though the wait it would take is endless."""
    import threading

    group, _, batches = _named_writers(monkeypatch, 600.0, comes_back=0.0)
    assert group.gathering == frozenset()
    alone = threading.Thread(target=group.run, args=("A",))
    alone.start()
    alone.join(60)
    assert not alone.is_alive() and batches[2:] == [["A"]]


def test_a_writer_that_stopped_is_waited_for_two_batches_at_most(monkeypatch: pytest.MonkeyPatch) -> None:
    group, _, batches = _named_writers(monkeypatch, 0.01)
    assert group.run("A") == "A"  # B stopped: A commits alone after the wait
    assert group.gathering == frozenset({"A", "B"})  # B was in the batch before
    assert group.run("A") == "A"
    assert group.gathering == frozenset({"A"})  # forgotten: the next leader waits for no one else
    assert group.run("A") == "A"
    assert batches[2:] == [["A"], ["A"], ["A"]]


def test_an_edit_joining_group_commit_tells_its_front_end_and_a_whole_file_write_does_not(tmp_path: Path) -> None:
    """Workspace.on_wait: a daemon hands reading on when told (daemon.py); a write outside group commit keeps it."""
    told: list[str] = []
    workspace = Workspace(tmp_path)
    try:
        with workspace.on_wait(lambda: told.append("told")):
            workspace.write_text("notes.txt", "one\n")
            assert told == []
            workspace.replace("notes.txt", (("one", "two"),))
            assert told == ["told"]
        workspace.replace("notes.txt", (("two", "three"),))  # outside the block: nobody to tell
        assert told == ["told"] and (tmp_path / "notes.txt").read_text() == "three\n"
    finally:
        workspace.close()
