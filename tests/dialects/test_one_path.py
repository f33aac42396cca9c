"""One path for all (issue 16 item 3): String Commands, OPERATOR_CMD and the JSON tools translate and format only.
The same change made through each gives the same bytes, the same journal entry and the same audit record (only the
front end differs); `/changes`, `/undo` and `/revert` see a change whichever dialect made it; a secret or a path
outside the root is refused by each in its own shape, with the same code underneath, and nothing is written."""

from __future__ import annotations

from pathlib import Path

from tests.dialects.one_path_support import (
    CHANGED,
    audit,
    command,
    edit_request,
    edits_block,
    files,
    frontends,
    operator,
    patch_block,
    replace_script,
    seed,
    steady,
    string_commands,
    tools,
)
from tests.dialects.operator.operator_support import allow_changes, result

HEAD = "re: /changes\nChanges, newest first (all {n} kept; /changes ID shows one, /revert ID reverts it):\n---\n"
WIN_DIFF = "--- a/win.txt\n+++ b/win.txt\n@@ -1,3 +1,3 @@\n alpha\n-port = 3000\n+port = 8080\n omega\n"
BOM_DIFF = "--- a/bom.txt\n+++ b/bom.txt\n@@ -1,3 +1,3 @@\n name = café\n-port = 3000\n+port = 8080\n end\n"


def change_everywhere(tmp_path: Path, operator_block=patch_block) -> dict[str, Path]:
    """The same two edits (one line of the CRLF file, then of the BOM file), each dialect on a fresh copy."""
    allow_changes()  # the USER's policy file: a workspace's own stringsh.toml can never allow this
    spaces = {name: seed(tmp_path / name) for name in ("string", "operator", "tools")}
    assert string_commands(spaces["string"], replace_script("win.txt", "bom.txt")) == (
        "re: /replace win.txt\nReplaced 1 occurrence in win.txt\n"
        "re: /replace bom.txt\nReplaced 1 occurrence in bom.txt\n")
    summary = "Patched file" if operator_block is patch_block else "Applied edits"
    assert operator(spaces["operator"], operator_block("win.txt", "w"), operator_block("bom.txt", "b")) == (
        result("w", True, summary) + result("b", True, summary))
    assert tools(spaces["tools"], edit_request("win.txt", 1), edit_request("bom.txt", 2)) == [
        {"id": n, "ok": True, "result": {"success": True, "lines_changed": 1, "replacements": 1}} for n in (1, 2)]
    return spaces


def test_same_change_same_bytes_journal_and_audit(tmp_path: Path) -> None:
    spaces = change_everywhere(tmp_path)
    for ws in spaces.values():
        assert files(ws) == CHANGED  # CRLF and BOM kept, every other byte too
    # the journal: one change set a file, the same files, counts and diff; the topic and command line say who
    commands = {"string": ("main", "/replace win.txt", "/replace bom.txt"),
                "operator": ("operator", "-", "-"),
                "tools": ("tools", "edit win.txt", "edit bom.txt")}
    for name, ws in spaces.items():
        topic, first, second = commands[name]
        width = max(len(first), len(second))
        assert command(ws, "/changes") == HEAD.format(n=2) + (
            f"2  TIME  {topic}  {second:<{width}}  bom.txt +1 -1\n"
            f"1  TIME  {topic}  {first:<{width}}  win.txt +1 -1\n")
        assert command(ws, "/changes 1") == f"re: /changes 1\nChange 1, TIME, topic {topic}: {first}\n---\n" + WIN_DIFF
        assert command(ws, "/changes 2") == f"re: /changes 2\nChange 2, TIME, topic {topic}: {second}\n---\n" + BOM_DIFF
        assert frontends(ws) == [(1, name, topic), (2, name, topic)]
    # the audit trail: the engine's record of each change set, the same keys, op, paths and outcome
    for name, ws in spaces.items():
        topic = commands[name][0]
        changes = [steady(r) for r in audit(ws) if "change" in r]
        assert changes == [{"change": n, "frontend": name, "op": "apply", "outcome": "ok", "paths": [path],
                            "topic": topic} for n, path in ((1, "win.txt"), (2, "bom.txt"))]
        assert {r["frontend"] for r in audit(ws)} == {name}  # every record says which dialect asked
    text = "\n".join(str(audit(ws)) for ws in spaces.values())
    assert "3000" not in text and "8080" not in text  # contents never reach the audit trail
    # a dialect's own record of the call, where it keeps one (seed 001's logging), comes after the engine's
    assert [(r["op"], r["outcome"], r["paths"]) for r in audit(spaces["tools"]) if r["op"].startswith("tools.")] == [
        ("tools.edit", "ok", ["win.txt"]), ("tools.edit", "ok", ["bom.txt"])]


def test_apply_edits_makes_the_same_bytes_and_journal_entry(tmp_path: Path) -> None:
    spaces = change_everywhere(tmp_path, edits_block)
    assert files(spaces["operator"]) == files(spaces["string"]) == files(spaces["tools"]) == CHANGED
    for ws in spaces.values():
        assert command(ws, "/changes 1").split("\n---\n", 1)[1] == WIN_DIFF
        assert command(ws, "/changes 2").split("\n---\n", 1)[1] == BOM_DIFF
    assert frontends(spaces["operator"]) == [(1, "operator", "operator"), (2, "operator", "operator")]
    records = [steady(r) for r in audit(spaces["operator"]) if "change" in r]
    assert [(r["change"], r["outcome"], r["paths"], r["frontend"]) for r in records] == [
        (1, "ok", ["win.txt"], "operator"), (2, "ok", ["bom.txt"], "operator")]
