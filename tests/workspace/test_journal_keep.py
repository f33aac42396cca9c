"""The journal is bounded. The policy's `[journal] keep_changes` and `keep_bytes` (whichever keeps
fewer; the newest change always stays; a pending one is never pruned) are applied after each change with a cheap
check; `/undo` past the pruned depth says so; `/info` shows the depth; the SQLite file stops growing."""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path

import pytest

from stringsh.errors import StringError
from stringsh.workspace import checkpoint
from stringsh.workspace.atomic import sha256
from stringsh.workspace.engine import Workspace
from stringsh.workspace.models import ChangeSet
from stringsh.workspace.policy import JournalKeep, Policy, parse_policy
from stringsh.workspace.state import JOURNAL_FILE, state_folder
from tests.conftest import SHELL_ENV_INFO, info_setup, run_stringsh, script_replies


def keeping(root: Path, changes: int = 1000, size: int = 128 * 1024 * 1024) -> Workspace:
    return Workspace(root, Policy.default(root)._replace(journal=JournalKeep(changes, size)))


def test_the_newest_keep_changes_are_kept_after_each_change(ws: Path) -> None:
    workspace = keeping(ws, changes=3)
    try:
        for i in range(10):
            workspace.write_text("a.txt", f"v{i}\n")
            assert len(workspace.history()) == min(i + 1, 3)
        assert [row.id for row in workspace.history()] == [10, 9, 8]
        assert workspace.journal_depth() == (3, 9, 8, 10)  # v6, v7, v8: three bytes each
        assert workspace.journal.db.execute("SELECT COUNT(*) FROM blobs").fetchone()[0] == 3
        workspace.undo("main")  # an undo is a change set too: 11 is kept, 8 goes
        workspace.undo("main")
        assert (ws / "a.txt").read_text() == "v7\n"
        with pytest.raises(StringError) as caught:
            workspace.undo("main")
        assert caught.value.message == "Nothing left to undo: older changes of this topic were pruned from the journal."
    finally:
        workspace.close()


def test_the_bytes_bound_prunes_the_oldest_and_keeps_the_newest_whatever_its_size(ws: Path) -> None:
    workspace = keeping(ws, size=1000)
    try:
        for i in range(6):
            workspace.write_text("a.txt", f"{i}" * 399 + "\n")  # each overwrite keeps 400 previous bytes
        assert [row.id for row in workspace.history()] == [6, 5]
        assert workspace.journal_depth() == (2, 800, 5, 6)
        workspace.write_text("a.txt", "x" * 5000)
        workspace.write_text("a.txt", "y\n")  # keeps 5000 bytes, more than the bound: alone, but kept
        assert [row.id for row in workspace.history()] == [8]
        assert workspace.journal_depth() == (1, 5000, 8, 8)
        outcome = workspace.undo("main")
        assert (outcome.reverted_id, (ws / "a.txt").read_text()) == (8, "x" * 5000)
    finally:
        workspace.close()


def test_a_pending_change_set_is_never_pruned(ws: Path) -> None:
    workspace = keeping(ws)
    try:
        for i in range(4):
            workspace.write_text("a.txt", f"v{i}\n")
        db = workspace.journal.db
        db.execute("UPDATE changesets SET state='pending' WHERE id=1")
        assert workspace.journal.prune(1) == 2  # 2 and 3; 1 is pending, 4 the newest
        assert [row.id for row in workspace.journal.history()] == [4, 1]
        assert workspace.journal.files(1)[0].prev_sha is None
    finally:
        workspace.close()


def test_undo_past_the_pruned_depth_says_the_changes_were_pruned(ws: Path) -> None:
    (ws / "stringsh.toml").write_text("[journal]\nkeep_changes = 3\n")  # an undo is a change set too
    replies = script_replies(ws, "/write a.md 1\n/write --force a.md 2\n/write --force a.md 3\n/undo\n/undo\n/undo\n")
    assert replies[3:] == [
        "re: /undo\nUndo: reverted a.md (1 line)",
        "re: /undo\nUndo: reverted a.md (1 line)",
        "re: /undo\nERROR(NOT_FOUND): Nothing left to undo: older changes of this topic were pruned from the journal.\n"
        "The journal keeps the newest 3 changes and 128 MiB of previous content ([journal] keep_changes, keep_bytes "
        "in your own policy (<config>/policy.toml or --policy FILE)); /changes lists the changes kept.",
    ]  # an untrusted workspace's stringsh.toml can lower them, never raise them: the hint does not send you there
    assert (ws / "a.md").read_text() == "1\n"
    # Another client (another name) never had a change pruned: plain "Nothing to undo."
    other = run_stringsh(["-c", "/undo"], ws, env={"STRINGSH_CLIENT": "another"})
    assert other.stdout.decode() == (
        "re: /undo\nERROR(NOT_FOUND): Nothing to undo.\n"
        "/changes lists the changes there are.\n"
    )


def test_info_shows_the_journal_depth(ws: Path) -> None:
    out = run_stringsh(["-c", "/info"], ws).stdout.decode()
    assert "journal:" not in out and not (state_folder(ws) / "journal.db").exists()  # none made by asking
    (ws / "a.md").write_text("0123456789\n")
    run_stringsh(["run", "-"], ws, stdin="/write --force a.md one\n/write --force a.md two\n")
    out = run_stringsh(["-c", "/info"], ws).stdout.decode()
    assert out.endswith(
        f"vars:      (none)\n{SHELL_ENV_INFO}\n{info_setup(ws)}\n"
        "journal:   2 changes kept (oldest 1, newest 2), 15 bytes of previous content; keeps the newest 1000 "
        "changes (pruned at 1100) and at most 128 MiB\n"
    )


def test_from_ten_kept_changes_a_prune_waits_for_a_tenth_more_and_goes_back_to_the_bound(ws: Path) -> None:
    """A prune scans the kept rows: past 10 change sets it frees a tenth at a time, not one per change."""
    workspace = keeping(ws, changes=20)
    try:
        for i in range(22):
            workspace.write_text("a.txt", f"v{i}\n")
        assert [row.id for row in workspace.history(limit=30)] == list(range(22, 0, -1))  # 22: still under 23
        workspace.write_text("a.txt", "v22\n")
        assert [row.id for row in workspace.history(limit=30)] == list(range(23, 3, -1))  # the newest 20
        assert workspace.journal.db.execute("SELECT COUNT(*) FROM blobs").fetchone()[0] == 20
        for i in range(23, 25):
            workspace.write_text("a.txt", f"v{i}\n")
        assert len(workspace.history(limit=30)) == 22
    finally:
        workspace.close()


def test_a_write_under_the_bound_prunes_nothing_and_scans_nothing(ws: Path) -> None:
    workspace = keeping(ws, changes=50)
    try:
        for i in range(5):
            workspace.write_text("a.txt", f"v{i}\n")
        statements: list[str] = []
        workspace.journal.db.set_trace_callback(statements.append)
        workspace.write_text("a.txt", "next\n")
        workspace.journal.db.set_trace_callback(None)
        assert not [s for s in statements if "DELETE" in s or "SUM(" in s or "COUNT(" in s]
        assert any("OFFSET" in s for s in statements)
    finally:
        workspace.close()


def test_the_journal_file_stops_growing(ws: Path) -> None:
    """Measured: with 20 KB of previous bytes per change and keep_changes = 5, journal.db stays at 208 KiB from
    change 50 to 400 (pruning frees pages and SQLite reuses them), and the WAL at ~4 MiB (its autocheckpoint)."""
    workspace = keeping(ws, changes=5)
    path = workspace.state.journal_path
    try:
        for i in range(300):
            workspace.write_text("a.txt", os.urandom(10_000).hex())
            if i == 60:
                early = os.path.getsize(path)
        # unbounded, the database would grow by 20 KB a change (6 MB here); the WAL is checkpointed past ~4 MiB
        # on a worker, and by the writer itself past twice that (checkpoint.py), so it stays under that plus a change
        assert os.path.getsize(path) <= early
        assert os.path.getsize(f"{path}-wal") < checkpoint.HARD + 1024 * 1024
        assert workspace.journal_depth().changes == 5
    finally:
        workspace.close()


def test_an_old_journal_upgrades_and_is_bounded_from_then_on(ws: Path) -> None:
    """A journal written before `commands`, `meta` and `pruned_undo` existed opens, lists its changes with no
    command, has its kept bytes summed once, and is pruned to the policy on the next change."""
    from tests.commands.test_undo_scope import OLD_SCHEMA

    (ws / "a.md").write_text("new\n")
    folder = state_folder(ws)
    folder.mkdir(parents=True, mode=0o700)
    db = sqlite3.connect(folder / JOURNAL_FILE)
    db.executescript(OLD_SCHEMA)
    for cs in (1, 2, 3):
        db.execute("INSERT INTO changesets VALUES (?, 0, 'main', 'string', 'apply', NULL, 'done', NULL)", (cs,))
        old = f"old{cs}\n".encode()
        db.execute("INSERT INTO files VALUES (?, 0, 'a.md', ?, ?, 420, 420)", (cs, sha256(old), sha256(b"x")))
        db.execute("INSERT INTO blobs VALUES (?, ?)", (sha256(old), old))
    db.commit()
    db.close()
    out = re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", "TIME", run_stringsh(["-c", "/changes"], ws).stdout.decode())
    assert out == (
        "re: /changes\nChanges, newest first (all 3 kept; /changes ID shows one, /revert ID reverts it):\n---\n"
        "3  TIME  main  -  a.md +? -?\n2  TIME  main  -  a.md +? -?\n1  TIME  main  -  a.md +? -?\n"
    )
    workspace = keeping(ws, changes=2)
    try:
        assert workspace.journal_depth() == (3, 15, 1, 3)
        workspace.apply(ChangeSet().write("b.md", b"b\n"))
        assert [(row.id, row.command) for row in workspace.history()] == [(4, None), (3, None)]
        assert workspace.journal_depth() == (2, 5, 3, 4)
    finally:
        workspace.close()


def test_the_keep_policy_is_checked_and_a_workspace_may_only_lower_it(ws: Path, tmp_path: Path) -> None:
    source = tmp_path / "p.toml"
    policy = parse_policy("[journal]\nkeep_changes = 10\nkeep_bytes = 4096\n", source, ws)
    assert policy.journal == JournalKeep(10, 4096)
    for text, problem in (("keep_changes = 0", "journal.keep_changes = 0 is out of range (1 to 1e+06)"),
                          ("keep_bytes = -1", "journal.keep_bytes has the wrong type (int)"),
                          ("keep = 3", "unknown key 'keep' in [journal] (known: keep_bytes, keep_changes)")):
        with pytest.raises(StringError) as caught:
            parse_policy(f"[journal]\n{text}\n", source, ws)
        assert caught.value.message == f"Bad policy file {source}: {problem}"
    (ws / "stringsh.toml").write_text("[journal]\nkeep_changes = 5000\nkeep_bytes = 1024\n")
    proc = run_stringsh(["-c", "/ls"], ws)
    assert "journal.keep_changes" in proc.stderr.decode()  # widening: ignored, and said so at start-up
    workspace = Workspace.load(ws)
    try:
        assert workspace.policy.journal == JournalKeep(1000, 1024)
    finally:
        workspace.close()
