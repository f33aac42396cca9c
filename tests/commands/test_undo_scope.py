"""Undo belongs to whoever made the change. `/undo` walks back only this client's (a process's, a daemon's, a
terminal session's) changes of the topic; other clients' changes stay in the journal untouched."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from stringsh.dispatcher import Dispatcher
from stringsh.workspace.engine import Workspace
from stringsh.workspace.state import JOURNAL_FILE, state_folder
from tests.commands.plain_client import PlainClient
from tests.commands.sessions import run_in_new_session
from tests.conftest import run_stringsh

NOTHING = "ERROR(NOT_FOUND): Nothing to undo.\n/changes lists the changes there are."


def test_two_plain_processes_on_one_folder_undo_only_their_own(ws: Path, tmp_path: Path) -> None:
    a = PlainClient(ws, tmp_path / "a.out")
    b = PlainClient(ws, tmp_path / "b.out")
    try:
        a.ask("/write from_a.txt alpha", "Created: from_a.txt (6 bytes, 1 line)")
        b.ask("/write from_b.txt beta", "Created: from_b.txt (5 bytes, 1 line)")
        a.ask("/undo", "Undo: deleted from_a.txt (was newly created)")
        a.ask("/undo", NOTHING)
        assert (ws / "from_b.txt").read_text() == "beta\n"  # B's change is B's: A's /undo left it
        b.ask("/undo", "Undo: deleted from_b.txt (was newly created)")
        b.ask("/undo", NOTHING)
    finally:
        a.close()
        b.close()
    assert sorted(p.name for p in ws.iterdir()) == [".stringsh"]


def test_a_person_and_an_agent_in_the_same_topic_name(ws: Path, tmp_path: Path) -> None:
    """Both use topic `main`; "this topic" is this client's topic, so the person's later edit is not undone."""
    agent = PlainClient(ws, tmp_path / "agent.out")
    try:
        agent.ask("/write notes.md agent", "Created: notes.md (6 bytes, 1 line)")
        person = run_stringsh(["-c", "/write person.md hand"], ws)
        assert person.stdout.decode() == "re: /write person.md hand\nCreated: person.md (5 bytes, 1 line)\n"
        agent.ask("/undo", "Undo: deleted notes.md (was newly created)")
        agent.ask("/undo", NOTHING)
        assert (ws / "person.md").read_text() == "hand\n"
    finally:
        agent.close()


def test_a_c_invocation_in_another_terminal_does_not_undo_this_ones(ws: Path) -> None:
    assert run_stringsh(["-c", "/write made.txt hi"], ws).returncode == 0
    proc = run_in_new_session(["-c", "/undo"], ws)
    assert proc.stdout.decode() == f"re: /undo\n{NOTHING}\n"
    assert proc.returncode == 1
    assert (ws / "made.txt").read_text() == "hi\n"


def test_a_scripts_undo_never_deletes_what_another_terminals_run_created(ws: Path) -> None:
    (ws / "first.str").write_text("/write made.txt <<EOF\nfrom the first run\nEOF\n")
    (ws / "second.str").write_text("/write mine.txt <<EOF\nsecond\nEOF\n/undo\n/undo\n")
    assert run_in_new_session(["run", "first.str"], ws).returncode == 0
    proc = run_stringsh(["run", "--keep-going", "second.str"], ws)
    assert proc.stdout.decode().endswith(
        "re: /undo\nUndo: deleted mine.txt (was newly created)\n" f"re: /undo\n{NOTHING}\n"
    )
    assert (ws / "made.txt").read_text() == "from the first run\n"
    assert not (ws / "mine.txt").exists()


def test_the_daemon_is_one_client_with_its_topics(ws: Path) -> None:
    assert run_stringsh(["-c", "/write other.txt before"], ws).returncode == 0
    stdin = "/write mine.txt daemon\n/undo\n/undo\n"
    out = run_stringsh(["daemon"], ws, stdin=stdin).stdout.decode()
    assert "re: /undo\nUndo: deleted mine.txt (was newly created)\n</𝒞>" in out
    assert f"re: /undo\n{NOTHING}\n</𝒞>" in out
    assert (ws / "other.txt").read_text() == "before\n"
    assert not (ws / "mine.txt").exists()


def test_undo_depth_counts_only_this_clients_changes(ws: Path) -> None:
    first = Dispatcher(ws)
    second = Dispatcher(ws)
    try:
        assert first.execute("/write a.md\na\n").ok
        assert first.workspace.undo_depth("main") == 1
        assert second.workspace.undo_depth("main") == 0
        assert second.execute("/undo").text == f"re: /undo\n{NOTHING}"
        assert (ws / "a.md").exists()
    finally:
        first.close()
        second.close()


def test_help_says_what_survives_the_process(dispatcher) -> None:
    text = dispatcher.execute("/help undo").text
    assert "made it. A named or terminal-session client's undo history therefore outlives each process; a process's " \
        "own client\n(a restarted REPL, a new daemon) starts with nothing to undo" in text
    assert "    /undo --skip\n" in text


OLD_SCHEMA = """
CREATE TABLE changesets(id INTEGER PRIMARY KEY AUTOINCREMENT, time REAL NOT NULL, topic TEXT NOT NULL,
    frontend TEXT NOT NULL, kind TEXT NOT NULL, reverts INTEGER, state TEXT NOT NULL, reverted_by INTEGER);
CREATE INDEX changesets_state ON changesets(state);
CREATE INDEX changesets_topic ON changesets(topic, kind, state);
CREATE TABLE files(cs INTEGER NOT NULL, idx INTEGER NOT NULL, path TEXT NOT NULL, prev_sha TEXT, new_sha TEXT,
    prev_mode INTEGER, new_mode INTEGER, PRIMARY KEY(cs, idx));
CREATE TABLE blobs(sha TEXT PRIMARY KEY, data BLOB NOT NULL);
"""


def test_a_journal_of_an_older_version_upgrades_without_losing_anything(ws: Path) -> None:
    """An old journal has no owners: its changes are no new process's to undo, yet stay revertable by id."""
    from stringsh.workspace.atomic import sha256

    (ws / "a.md").write_text("new\n")
    folder = state_folder(ws)
    folder.mkdir(parents=True, mode=0o700)
    db = sqlite3.connect(folder / JOURNAL_FILE)
    db.executescript(OLD_SCHEMA)
    db.execute("INSERT INTO changesets VALUES (1, 0, 'main', 'string', 'apply', NULL, 'done', NULL)")
    db.execute("INSERT INTO files VALUES (1, 0, 'a.md', ?, ?, 420, 420)", (sha256(b"old\n"), sha256(b"new\n")))
    db.execute("INSERT INTO blobs VALUES (?, ?)", (sha256(b"old\n"), b"old\n"))
    db.commit()
    db.close()
    proc = run_stringsh(["-c", "/undo"], ws)
    assert proc.stdout.decode() == f"re: /undo\n{NOTHING}\n"
    workspace = Workspace(ws)
    try:
        [row] = workspace.history()
        assert (row.id, row.topic, row.state, row.client, row.reverted_by) == (1, "main", "done", None, None)
        outcome = workspace.revert(1)
        assert (outcome.reverted_id, [(f.rel, f.action) for f in outcome.files]) == (1, [("a.md", "reverted")])
        assert (ws / "a.md").read_text() == "old\n"
        newest = workspace.history()[0]
        assert (newest.id, newest.kind, newest.reverts, newest.client) == (2, "revert", 1, workspace.state.client)
    finally:
        workspace.close()
    db = sqlite3.connect(folder / JOURNAL_FILE)  # the old tables are as they were: an older version still reads it
    assert [r[1] for r in db.execute("PRAGMA table_info(changesets)")] == [
        "id", "time", "topic", "frontend", "kind", "reverts", "state", "reverted_by"
    ]
    db.close()
