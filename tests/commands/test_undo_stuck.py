"""Undo must not dead-end. A file already back in its before-state is a step done; a change that
cannot be undone can be skipped (`/undo --skip`) with a hint that works; `/close` and restarts never keep undo
stuck; undo of a write into new folders removes those folders while they are empty."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from stringsh.workspace.engine import Workspace
from stringsh.workspace.models import ChangeSet
from tests.commands.plain_client import PlainClient
from tests.conftest import run_stringsh

NOTHING = "ERROR(NOT_FOUND): Nothing to undo.\n/changes lists the changes there are."


def git(ws: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=ws, check=True,
                   capture_output=True)


@pytest.mark.needs("git")
def test_a_file_restored_by_git_checkout_counts_as_undone(ws: Path, tmp_path: Path) -> None:
    (ws / "README.md").write_text("# readme\n")
    git(ws, "init", "-q")
    git(ws, "add", "README.md")
    git(ws, "commit", "-qm", "init")
    agent = PlainClient(ws, tmp_path / "agent.out")
    try:
        agent.ask("/write notes.md first", "Created: notes.md (6 bytes, 1 line)")
        agent.ask("/write --force README.md changed", "Written: README.md (8 bytes, 1 line)")
        git(ws, "checkout", "README.md")
        agent.ask("/undo", "Undo: README.md already holds its content from before change 2 (1 lines), nothing written")
        agent.ask("/undo", "Undo: deleted notes.md (was newly created)")
        agent.ask("/undo", NOTHING)
    finally:
        agent.close()
    assert (ws / "README.md").read_text() == "# readme\n"


def test_after_rm_undo_offers_a_skip_that_works_and_reaches_older_changes(ws: Path, tmp_path: Path) -> None:
    agent = PlainClient(ws, tmp_path / "agent.out")
    try:
        agent.ask("/write keep.md kept", "Created: keep.md (5 bytes, 1 line)")
        agent.ask("/write longline.txt v1", "Created: longline.txt (3 bytes, 1 line)")
        agent.ask("/write --force longline.txt v2", "Written: longline.txt (3 bytes, 1 line)")
        (ws / "longline.txt").unlink()
        stuck = ("ERROR(CONFLICT): Refusing to undo: longline.txt was deleted since change 3 wrote it.\n"
                 "Nothing was changed; /undo --skip leaves it deleted and goes on to older changes.")
        agent.ask("/undo", stuck)
        agent.ask("/close", "ERROR(INVALID_TARGET): No document open.\nOpen one with /open <path>.")
        agent.ask("/undo", stuck)
        agent.ask("/undo --skip",
                  "Undo: skipped change 3 (longline.txt), left as it is; the next /undo takes back change 2.")
        agent.ask("/undo", "Undo: longline.txt is already gone (change 2 created it), nothing written")
        agent.ask("/undo", "Undo: deleted keep.md (was newly created)")
        agent.ask("/undo", NOTHING)
        agent.ask("/undo --skip", "ERROR(NOT_FOUND): Nothing to skip: this topic has no change left to undo.\n"
                  "Changes of other topics and other clients are not undone here; see /help undo.")
    finally:
        agent.close()
    assert not (ws / "longline.txt").exists() and not (ws / "keep.md").exists()


def test_a_changed_file_is_skipped_and_left_as_it_is(ws: Path, tmp_path: Path) -> None:
    agent = PlainClient(ws, tmp_path / "agent.out")
    try:
        agent.ask("/write a.md mine", "Created: a.md (5 bytes, 1 line)")
        agent.ask("/write b.md mine", "Created: b.md (5 bytes, 1 line)")
        (ws / "b.md").write_text("edited by hand\n")
        agent.ask("/undo", "ERROR(CONFLICT): Refusing to undo: b.md changed since change 2 wrote it.\n"
                  "Nothing was changed; open b.md to see it, or /undo --skip to leave it and go on to older changes.")
        agent.ask("/undo --skip", "Undo: skipped change 2 (b.md), left as it is; the next /undo takes back change 1.")
        agent.ask("/undo", "Undo: deleted a.md (was newly created)")
        agent.ask("/undo", NOTHING)
    finally:
        agent.close()
    assert (ws / "b.md").read_text() == "edited by hand\n"


def test_a_restart_is_never_stuck(ws: Path, tmp_path: Path) -> None:
    agent = PlainClient(ws, tmp_path / "agent.out")
    try:
        agent.ask("/write a.md mine", "Created: a.md (5 bytes, 1 line)")
        (ws / "a.md").write_text("edited by hand\n")
        agent.ask("/undo", "ERROR(CONFLICT): Refusing to undo: a.md changed since change 1 wrote it.\n"
                  "Nothing was changed; open a.md to see it, or /undo --skip to leave it and go on to older changes.")
    finally:
        agent.close()
    assert run_stringsh(["-c", "/undo"], ws).stdout.decode() == f"re: /undo\n{NOTHING}\n"
    assert run_stringsh(["-c", "/write b.md new"], ws, env={"STRINGSH_CLIENT": "another-agent"}).returncode == 0
    proc = run_stringsh(["run", "-"], ws, stdin="/write c.md <<EOF\nc\nEOF\n/undo\n/undo\n")
    assert proc.stdout.decode().endswith(f"re: /undo\nUndo: deleted c.md (was newly created)\nre: /undo\n{NOTHING}\n")
    assert (ws / "a.md").read_text() == "edited by hand\n" and (ws / "b.md").read_text() == "new\n"


def test_undo_removes_the_empty_folders_its_write_created(ws: Path, tmp_path: Path) -> None:
    (ws / "docs").mkdir()
    agent = PlainClient(ws, tmp_path / "agent.out")
    try:
        agent.ask("/write newdir/sub/file.md x", "Created: newdir/sub/file.md (2 bytes, 1 line)")
        agent.ask("/write docs/new/deep/f.md y", "Created: docs/new/deep/f.md (2 bytes, 1 line)")
        agent.ask("/write kept/a.md z", "Created: kept/a.md (2 bytes, 1 line)")
        (ws / "kept" / "other.txt").write_text("someone else's\n")
        agent.ask("/undo", "Undo: deleted kept/a.md (was newly created)")
        agent.ask("/undo", "Undo: deleted docs/new/deep/f.md (was newly created), removed its new empty folders "
                  "docs/new/deep, docs/new")
        agent.ask("/undo", "Undo: deleted newdir/sub/file.md (was newly created), removed its new empty folders "
                  "newdir/sub, newdir")
    finally:
        agent.close()
    assert sorted(p.name for p in ws.iterdir()) == [".stringsh", "docs", "kept"]
    assert list((ws / "docs").iterdir()) == []  # it existed before: never removed
    assert [p.name for p in (ws / "kept").iterdir()] == ["other.txt"]


def test_bad_undo_inputs_are_refused_by_name(ws: Path) -> None:
    cases = {
        "/undo --skip": "ERROR(NOT_FOUND): Nothing to skip: this topic has no change left to undo.\n"
        "Changes of other topics and other clients are not undone here; see /help undo.",
        "/undo --bogus": "ERROR(INVALID_PAYLOAD): Unknown flag for /undo: --bogus\n"
        "Usage: /undo [--skip]. Repeat /undo to go further back.",
        "/undo --skip now": "ERROR(INVALID_PAYLOAD): Usage: /undo [--skip]\n"
        "/undo takes no other arguments; repeat it to go further back.",
    }
    assert run_stringsh(["-c", "/write a.md kept"], ws, env={"STRINGSH_CLIENT": "another-agent"}).returncode == 0
    for request, reply in cases.items():
        proc = run_stringsh(["-c", request], ws)
        assert (proc.stdout.decode(), proc.returncode) == (f"re: {request}\n{reply}\n", 1)
    assert (ws / "a.md").read_text() == "kept\n"


def test_a_change_set_partly_back_in_its_before_state(ws: Path) -> None:
    """Only the files still holding what the change wrote are written back; the rest are reported as they are."""
    (ws / "a.md").write_text("a0\n")
    (ws / "b.md").write_text("b0\n")
    workspace = Workspace(ws)
    try:
        change = workspace.apply(ChangeSet().write("a.md", b"a1\n").write("b.md", b"b1\n"))
        (ws / "a.md").write_text("a0\n")
        outcome = workspace.undo("main")
        assert [(f.rel, f.action, f.lines) for f in outcome.files] == [("a.md", "already", 1), ("b.md", "reverted", 1)]
        assert (ws / "b.md").read_text() == "b0\n"
        assert [f.path for f in workspace.journal.files(outcome.change_id)] == ["b.md"]
        assert workspace.journal.get(change).reverted_by == outcome.change_id
        assert workspace.undo_depth("main") == 0
    finally:
        workspace.close()


def test_a_change_already_undone_outside_is_recorded_as_undone(ws: Path) -> None:
    workspace = Workspace(ws)
    try:
        change = workspace.apply(ChangeSet().write("x.md", b"x\n"))
        (ws / "x.md").unlink()
        outcome = workspace.undo("main")
        assert [(f.rel, f.action) for f in outcome.files] == [("x.md", "already_gone")]
        row = workspace.journal.get(outcome.change_id)
        assert (row.kind, row.reverts, row.state, row.client) == ("revert", change, "done", workspace.state.client)
        assert workspace.journal.files(outcome.change_id) == []
        assert workspace.journal.get(change).reverted_by == outcome.change_id
    finally:
        workspace.close()
