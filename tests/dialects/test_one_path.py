"""One path for all: String Commands, OPERATOR_CMD and the JSON tools translate and format only.
The same change made through each gives the same bytes, the same journal entry and the same audit record (only the
front end differs); `/changes`, `/undo` and `/revert` see a change whichever dialect made it; a secret or a path
outside the root is refused by each in its own shape, with the same code underneath, and nothing is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.dialects.one_path_support import (
    CHANGED,
    SEED,
    TIME,
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
from tests.dialects.operator.operator_support import allow_changes, b64, block, result, run

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
        result("w", True, summary, change=1) + result("b", True, summary, change=2))
    assert tools(spaces["tools"], edit_request("win.txt", 1), edit_request("bom.txt", 2)) == [
        {"id": n, "ok": True, "result": {"success": True, "lines_changed": 1, "replacements": 1, "change_id": n}}
        for n in (1, 2)]
    return spaces


def test_same_change_same_bytes_journal_and_audit(tmp_path: Path) -> None:
    spaces = change_everywhere(tmp_path)
    for ws in spaces.values():
        assert files(ws) == CHANGED  # CRLF and BOM kept, every other byte too
    # the journal: one change set a file, the same files, counts and diff; the topic and command line say who
    commands = {"string": ("main", "/replace win.txt", "/replace bom.txt"),
                "operator": ("operator", "fs.patch win.txt", "fs.patch bom.txt"),
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
    # the audit trail: one record per request, the same keys, engine operation, paths, change and outcome; only
    # the dialect and its name for the request differ
    ops = {"string": "/replace", "operator": "operator.fs.patch", "tools": "tools.edit"}
    for name, ws in spaces.items():
        topic = commands[name][0]
        changes = [steady(r) for r in audit(ws) if "change" in r]
        assert [{**r, "ops": r["ops"][-1:]} for r in changes] == [
            {"change": n, "frontend": name, "op": ops[name], "ops": ["apply"], "outcome": "ok", "paths": [path],
             "topic": topic} for n, path in ((1, "win.txt"), (2, "bom.txt"))]
        asked = [r for r in audit(ws) if r["op"] != "/changes"]  # the test's own /changes are String requests
        assert {r["frontend"] for r in asked} == {name}  # every record says which dialect asked
    text = "\n".join(str([steady(r) for r in audit(ws)]) for ws in spaces.values())
    assert "3000" not in text and "8080" not in text  # contents never reach the audit trail


def test_apply_edits_makes_the_same_bytes_and_journal_entry(tmp_path: Path) -> None:
    spaces = change_everywhere(tmp_path, edits_block)
    assert files(spaces["operator"]) == files(spaces["string"]) == files(spaces["tools"]) == CHANGED
    for ws in spaces.values():
        assert command(ws, "/changes 1").split("\n---\n", 1)[1] == WIN_DIFF
        assert command(ws, "/changes 2").split("\n---\n", 1)[1] == BOM_DIFF
    assert frontends(spaces["operator"]) == [(1, "operator", "operator"), (2, "operator", "operator")]
    records = [steady(r) for r in audit(spaces["operator"]) if "change" in r]
    # fs.applyEdits works the new text out itself and writes it whole (Workspace.write_text), so its engine
    # operation is `write`, as a whole-file `/edit`'s is; fs.patch, /replace and the tools' edit apply a change set
    assert [(r["change"], r["op"], r["ops"], r["outcome"], r["paths"], r["frontend"]) for r in records] == [
        (1, "operator.fs.applyEdits", ["read", "write"], "ok", ["win.txt"], "operator"),
        (2, "operator.fs.applyEdits", ["read", "write"], "ok", ["bom.txt"], "operator")]


MARK = "</𝒞>"


def plain_replies(out: str) -> list[str]:
    """The plain loop's replies on pipes, each ended by the mark line, local times shown as TIME."""
    parts = TIME.sub("TIME", out).split(f"\n{MARK}\n")
    assert parts[-1] == "", out
    return parts[:-1]


def test_one_workspace_every_dialect_in_turn(ws: Path) -> None:
    allow_changes()
    for name, data in SEED.items():
        (ws / name).write_bytes(data)
    assert string_commands(ws, replace_script("win.txt")) == "re: /replace win.txt\nReplaced 1 occurrence in win.txt\n"
    assert tools(ws, edit_request("bom.txt", 1))[0]["ok"] is True
    omega = "--- a/win.txt\n+++ b/win.txt\n@@ -3 +3 @@\n-omega\n+OMEGA\n"
    patch = block("version: 1", "id: p", "action: fs.patch", "path: win.txt", "patch_b64: " + b64(omega))
    # the plain loop takes the block as a request, in its own topic: its /undo takes the block's change back
    done = run(["--plain"], ws, patch + "/changes\n/undo\n/revert 2\n/changes\n")
    assert done.returncode == 0, done.stderr.decode()
    assert plain_replies(done.stdout.decode()) == [
        "re: OPERATOR_CMD\n" + result("p", True, "Patched file", change=3).rstrip("\n"),
        HEAD.format(n=3) + "3  TIME  main   fs.patch win.txt  win.txt +1 -1\n"
                           "2  TIME  tools  edit bom.txt      bom.txt +1 -1\n"
                           "1  TIME  main   /replace win.txt  win.txt +1 -1",
        "re: /undo\nUndo: reverted win.txt (3 lines)",
        "re: /revert 2\nReverted change 2 as change 5: reverted bom.txt (3 lines)",
        HEAD.format(n=5) + "5  TIME  main   /revert 2         bom.txt +1 -1 (reverts 2)\n"
                           "4  TIME  main   /undo             win.txt +1 -1 (undoes 3)\n"
                           "3  TIME  main   fs.patch win.txt  win.txt +1 -1 (reverted by 4)\n"
                           "2  TIME  tools  edit bom.txt      bom.txt +1 -1 (reverted by 5)\n"
                           "1  TIME  main   /replace win.txt  win.txt +1 -1",
    ]
    # the operator change is gone, the String Commands change before it stays; the tools change is reverted
    assert files(ws) == {"win.txt": CHANGED["win.txt"], "bom.txt": SEED["bom.txt"]}
    assert frontends(ws) == [(1, "string", "main"), (2, "tools", "tools"), (3, "operator", "main"),
                             (4, "string", "main"), (5, "string", "main")]
    assert command(ws, "/changes 3") == (
        "re: /changes 3\nChange 3, TIME, topic main: fs.patch win.txt (reverted by 4)\n---\n"
        "--- a/win.txt\n+++ b/win.txt\n@@ -1,3 +1,3 @@\n alpha\n port = 8080\n-omega\n+OMEGA\n")


REFUSED = {  # path: (code, message, hint) as the engine words them
    ".env": ("SECRET_DENIED", "Access to a secret file is denied: .env", "The policy's secret deny list covers this "
             "path."),
    "../x": ("INVALID_PATH", "Path escapes the workspace root: ../x", "Use a path inside the workspace."),
    "/etc/passwd": ("FILE_NOT_ALLOWED", "Path is outside the workspace: /etc/passwd", "Only paths under {ws} can be "
                    "used."),
}


def refuse_everywhere(ws: Path, path: str) -> tuple[str, str, list[dict]]:
    """A write and an edit of `path` through each dialect: String Commands, OPERATOR_CMD, JSON tools."""
    said = string_commands(ws, f"/write {path} <<EOF\nX=2\nEOF\n/replace {path} <<EOF\nKEY=1\n---\nKEY=2\nEOF\n")
    edits = json.dumps({"version": 1, "edits": [{"op": "replaceFirst", "find": "KEY=1", "text": "KEY=2"}]})
    blocks = operator(ws, block("version: 1", "id: w", "action: fs.write", f"path: {path}", "content: X=2"),
                      block("version: 1", "id: e", "action: fs.applyEdits", f"path: {path}",
                            "edits_b64: " + b64(edits)))
    replies = tools(ws, {"id": 1, "tool": "write", "args": {"file_path": path, "content": "X=2\n"}},
                    {"id": 2, "tool": "edit", "args": {"file_path": path, "old_string": "KEY=1",
                                                       "new_string": "KEY=2"}})
    return said, blocks, replies


@pytest.mark.parametrize("path", list(REFUSED))
def test_refusals_each_in_its_own_shape_same_code_nothing_written(tmp_path: Path, ws: Path, path: str) -> None:
    allow_changes()
    (ws / ".env").write_text("KEY=1\n")
    passwd = Path("/etc/passwd").read_bytes()
    code, message, hint = REFUSED[path]
    hint = hint.format(ws=ws)
    said, blocks, replies = refuse_everywhere(ws, path)
    assert said == (f"re: /write {path}\nERROR({code}): {message}\n{hint}\n"
                    f"re: /replace {path}\nERROR({code}): {message}\n{hint}\n")
    assert blocks == result("w", False, f"{code}: {message}") + result("e", False, f"{code}: {message}")
    assert replies == [{"id": n, "ok": False, "code": code, "error": message, "hint": hint} for n in (1, 2)]
    # nothing written, inside the root or out of it, and nothing journalled
    assert files(ws) == {".env": b"KEY=1\n"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ws", "ws-script.txt"]
    assert Path("/etc/passwd").read_bytes() == passwd
    assert command(ws, "/changes") == "re: /changes\nNo changes in the journal yet.\n"
    # the audit trail: one record per request, each a refusal by the one code, never the contents
    records = [steady(r) for r in audit(ws)][:-1]  # the last is the /changes just asked
    assert [(r["frontend"], r["op"], r["paths"], r["outcome"]) for r in records] == [
        ("string", "/write", [path], code), ("string", "/replace", [path], code),
        ("operator", "operator.fs.write", [path], code), ("operator", "operator.fs.applyEdits", [path], code),
        ("tools", "tools.write", [path], code), ("tools", "tools.edit", [path], code)]
    assert "KEY=" not in str(records) and "X=2" not in str(records)


@pytest.mark.parametrize("path", list(REFUSED))
def test_operator_write_refusal_is_audited_like_the_others(ws: Path, path: str) -> None:
    allow_changes()
    (ws / ".env").write_text("KEY=1\n")
    code, message, _ = REFUSED[path]
    assert operator(ws, block("version: 1", "id: w", "action: fs.write", f"path: {path}", "content: X=2")) == (
        result("w", False, f"{code}: {message}"))
    assert [(r["op"], r["paths"], r["outcome"]) for r in audit(ws) if r["frontend"] == "operator"] == [
        ("operator.fs.write", [path], code)]  # the dialect's record of the call, as the tools keep theirs
