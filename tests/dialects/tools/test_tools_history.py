"""JSON tools' `changes`, `revert` and `undo` through one real `stringsh tools` process: the journal as `/changes`,
`/revert ID` and `/undo` reach it, and a String Command run afterwards sees the same change sets."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.commands.gitrepo import git, make_repo, short
from tests.conftest import run_stringsh
from tests.dialects.tools.client import tools


def test_changes_revert_and_undo(ws: Path) -> None:
    replies = tools(
        ws,
        {"id": 1, "tool": "write", "args": {"file_path": "f.txt", "content": "one\ntwo\n"}},
        {"id": 2, "tool": "edit", "args": {"file_path": "f.txt", "old_string": "two", "new_string": "2"}},
        {"id": 3, "tool": "changes", "args": {}},
        {"id": 4, "tool": "changes", "args": {"id": 2}},
        {"id": 5, "tool": "undo", "args": {}},
        {"id": 6, "tool": "revert", "args": {"id": 1}},
        {"id": 7, "tool": "undo", "args": {"skip": True}},
        {"id": 8, "tool": "changes", "args": {"id": 99}},
        {"id": 9, "tool": "revert", "args": {"id": "1"}},
        {"id": 10, "tool": "changes", "args": {"limit": 1}},
        {"id": 11, "tool": "undo", "args": {}},
        {"id": 12, "tool": "changes", "args": {"id": 1, "limit": 5}},
    )
    results = [reply.get("result") for reply in replies]
    for listed in (results[2]["changes"], results[9]["changes"], [results[3]]):
        for row in listed:
            assert row.pop("time").startswith("20")  # local time, to the second, as /changes shows it
    assert results[2] == {"kept": 2, "changes": [
        {"id": 2, "topic": "tools", "command": "edit f.txt", "status": "",
         "files": [{"file_path": "f.txt", "lines": "+1 -1"}], "tree": []},
        {"id": 1, "topic": "tools", "command": "write f.txt", "status": "",
         "files": [{"file_path": "f.txt", "lines": "+2 -0"}], "tree": []}]}
    assert results[3] == {"id": 2, "topic": "tools", "command": "edit f.txt", "status": "",
                          "diff": "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2"}
    assert results[4] == {"change_id": 3, "reverted": 2, "summary": "reverted f.txt (2 lines)",
                          "files": [{"file_path": "f.txt", "action": "reverted", "lines": 2}]}
    assert results[5] == {"change_id": 4, "reverted": 1, "summary": "deleted f.txt (was newly created)",
                          "files": [{"file_path": "f.txt", "action": "deleted", "lines": 0}]}
    assert results[6] == {"skipped": 4, "paths": ["f.txt"], "next": None}
    assert replies[7] == {"id": 8, "ok": False, "code": "NOT_FOUND", "error": "No change 99 in the journal.",
                          "hint": "changes {} lists the changes kept."}
    assert replies[8] == {"id": 9, "ok": False, "code": "INVALID_ARGS",
                          "error": "revert: 'id' must be an integer, not a string."}
    assert results[9] == {"kept": 4, "changes": [
        {"id": 4, "topic": "tools", "command": "revert 1", "status": "reverts 1",
         "files": [{"file_path": "f.txt", "lines": "+0 -2"}], "tree": []}]}
    assert (replies[10]["ok"], replies[10]["code"]) == (False, "NOT_FOUND")
    assert replies[11] == {"id": 12, "ok": False, "code": "INVALID_ARGS",
                           "error": "changes takes 'id' (one change set) or 'limit' (the listing), not both."}
    assert not (ws / "f.txt").exists()
    listing = run_stringsh(["-c", "/changes"], cwd=ws).stdout.decode()
    assert "undo --skip" not in listing and "  revert 1  " in listing and "  edit f.txt  " in listing


@pytest.mark.needs("git")
def test_git_log(ws: Path) -> None:
    repo = make_repo(ws)
    (repo / "a.txt").write_text("two\n")
    git(repo, "commit", "-q", "-am", "second")
    first, second = short(repo, "HEAD~1"), short(repo)
    replies = tools(repo, {"id": 1, "tool": "git", "args": {"action": "log"}},
                    {"id": 2, "tool": "git", "args": {"action": "log", "limit": 1}},
                    {"id": 3, "tool": "git", "args": {"action": "log", "limit": 0}})
    assert replies[0]["result"] == {"commits": [
        {"commit": second, "date": "2026-01-02", "author": "Ana", "subject": "second"},
        {"commit": first, "date": "2026-01-02", "author": "Ana", "subject": "first"}]}
    assert replies[1]["result"] == {"commits": [replies[0]["result"]["commits"][0]]}
    assert replies[2] == {"id": 3, "ok": False, "code": "INVALID_ARGS",
                          "error": "git: 'limit' must be at least 1, not 0."}
