"""A forged journal row naming a path outside the roots: recovery never writes it, and it is
reported as tampering by `/changes`, `/changes ID` and `stringsh audit verify`, never shown as a rollback."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest

from stringsh.workspace.atomic import sha256
from stringsh.workspace.journalcheck import stray
from stringsh.workspace.state import JOURNAL_FILE, state_folder
from tests.conftest import run_stringsh

TAMPERED = "(TAMPERED: the journal names a path outside the roots; stringsh audit verify reports it)"


def forge(ws: Path, path: str) -> None:
    """A pending change set (2) whose one file row names `path`, as an attacker with the state folder writes it."""
    db = sqlite3.connect(state_folder(ws) / JOURNAL_FILE)
    db.execute("INSERT INTO changesets VALUES (2, 0, 'main', 'string', 'apply', NULL, 'pending', NULL)")
    db.execute("INSERT INTO files VALUES (2, 0, ?, NULL, ?, NULL, 420)", (path, sha256(b"pwned\n")))
    db.execute("INSERT INTO blobs VALUES (?, ?)", (sha256(b"pwned\n"), b"pwned\n"))
    db.commit()
    db.close()


@pytest.mark.parametrize("form", ["absolute", "dot-dot"])
def test_a_row_outside_the_roots_is_tampering_never_a_rollback(ws: Path, tmp_path: Path, form: str) -> None:
    canary = tmp_path / "canary.txt"
    assert run_stringsh(["-c", "/write a.txt\nhello\n"], ws).returncode == 0
    path = str(canary) if form == "absolute" else "../canary.txt"
    forge(ws, path)
    listed = run_stringsh(["-c", "/changes"], ws).stdout.decode().splitlines()
    assert not canary.exists()
    assert listed[1] == "Changes, newest first (all 2 kept; /changes ID shows one, /revert ID reverts it):"
    epoch = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(0))
    assert listed[2:4] == ["---", f"2  {epoch}  main  {'-':<12}  {path} +1 -0 {TAMPERED}"]
    assert "(rolled back)" not in "\n".join(listed)
    shown = run_stringsh(["-c", "/changes 2"], ws).stdout.decode().splitlines()
    assert shown[1:] == [f"Change 2, {epoch}, topic main: - {TAMPERED}", "---",
                         f"{path}: outside the roots, never written"]
    verified = run_stringsh(["audit", "verify"], ws)
    assert verified.returncode == 1
    assert verified.stdout.decode().splitlines()[-1] == (
        f"journal TAMPERED: change 2 names a path outside the roots: {path}; recovery never writes it")
    assert not canary.exists()


def test_an_untouched_journal_verifies(ws: Path) -> None:
    assert run_stringsh(["-c", "/write a.txt\nhello\n"], ws).returncode == 0
    verified = run_stringsh(["audit", "verify"], ws)
    assert verified.returncode == 0 and "journal TAMPERED" not in verified.stdout.decode()


@pytest.mark.parametrize(("path", "outside"), [
    ("notes.md", False), ("a:b.txt", False), ("docs:guide.md", False), ("sub/x.py", False),
    ("/etc/passwd", True), ("../x", True), ("a/../../x", True), ("docs:../x", True), ("docs:/x", True), ("", True),
    ("a//b", True), ("./a", True),
])
def test_what_the_engine_never_journals(path: str, outside: bool) -> None:
    assert stray(path, {"main", "docs"}) is outside
