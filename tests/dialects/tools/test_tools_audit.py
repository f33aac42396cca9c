"""The JSON tools' audit logging, and one engine for every dialect: a tools change is journalled, listed by /changes
and reverted by /revert like a String Commands change."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_stringsh
from tests.dialects.tools.client import audit_records, tools

META = {"client", "frontend", "hash", "ms", "op", "ops", "outcome", "paths", "prev", "time", "topic", "workspace"}


def tool_records() -> list[dict]:
    return [r for r in audit_records() if r["op"].startswith("tools.")]


def test_successful_operation_logged(ws: Path) -> None:
    replies = tools(ws, {"id": 1, "tool": "write", "args": {"file_path": "notes.txt", "content": "CONTENT-XYZ\n"}},
                    {"id": 2, "tool": "bash", "args": {"command": "cat notes.txt; echo OUTPUT-QRS"}},
                    {"id": 3, "tool": "read", "args": {"file_path": "notes.txt"}})
    assert [r["ok"] for r in replies] == [True, True, True]
    records = tool_records()
    assert [(r["op"], r["outcome"], r["paths"], r.get("command")) for r in records] == [
        ("tools.write", "ok", ["notes.txt"], None),
        ("tools.bash", "ok", [], "cat notes.txt; echo OUTPUT-QRS"),
        ("tools.read", "ok", ["notes.txt"], None),
    ]
    for record in records:
        assert set(record) - {"command", "change"} == META
        assert (record["frontend"], record["topic"]) == ("tools", "tools")
        assert isinstance(record["time"], float) and isinstance(record["ms"], float)
        assert record["workspace"] == records[0]["workspace"] and len(record["workspace"]) == 32
    log = "\n".join(map(str, audit_records()))
    assert "CONTENT-XYZ" not in log
    assert "OUTPUT-QRS\n" not in log and "'OUTPUT-QRS'" not in log  # the command line names it, the output never
    assert [r["ops"] for r in records] == [["write"], ["exec"], ["stat", "read"]]  # the engine's operations
    assert len(audit_records()) == 3  # one record per request


def test_failed_operation_logged(ws: Path) -> None:
    (ws / "a.txt").write_text("SECRET-BODY\n")
    replies = tools(ws, {"id": 1, "tool": "edit", "args": {"file_path": "a.txt", "old_string": "zzz",
                                                           "new_string": "NEW-TEXT"}},
                    {"id": 2, "tool": "read", "args": {"file_path": "gone.txt"}},
                    {"id": 3, "tool": "bash", "args": {"command": "exit 4"}},
                    {"id": 4, "tool": "bash", "args": {"command": "sleep 20", "timeout_ms": 200}})
    assert [r.get("code") for r in replies] == ["NO_MATCH", "NOT_FOUND", None, "TIMEOUT"]
    records = tool_records()
    assert [(r["op"], r["outcome"], r["paths"], r.get("command")) for r in records] == [
        ("tools.edit", "NO_MATCH", ["a.txt"], None),
        ("tools.read", "NOT_FOUND", ["gone.txt"], None),
        ("tools.bash", "EXIT_4", [], "exit 4"),  # a non-zero exit is a result for the agent, EXIT_4 for the log
        ("tools.bash", "TIMEOUT", [], "sleep 20"),
    ]
    assert len(audit_records()) == 4  # one record per request
    for record in records:
        assert set(record) - {"command"} == META
        assert (record["frontend"], record["topic"]) == ("tools", "tools")
    log = "\n".join(map(str, audit_records()))
    assert "SECRET-BODY" not in log and "NEW-TEXT" not in log


def test_changes_lists_a_tools_change_and_revert_takes_it_back(ws: Path) -> None:
    (ws / "a.txt").write_text("port = 3000\n")
    replies = tools(ws, {"id": 1, "tool": "edit", "args": {"file_path": "a.txt", "old_string": "3000",
                                                           "new_string": "8080"}})
    assert replies[0]["ok"] is True
    listing = run_stringsh(["-c", "/changes"], cwd=ws).stdout.decode()
    rows = listing.split("---\n", 1)[1].splitlines()
    assert len(rows) == 1
    assert rows[0].split()[3:] == ["tools", "edit", "a.txt", "a.txt", "+1", "-1"]
    assert (ws / "a.txt").read_text() == "port = 8080\n"
    reverted = run_stringsh(["-c", "/revert 1"], cwd=ws)
    assert reverted.returncode == 0, reverted.stdout.decode()
    assert (ws / "a.txt").read_text() == "port = 3000\n"
