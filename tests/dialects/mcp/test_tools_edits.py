"""`edit_block`, `replace`, `patch`, `changes`, `revert` and `undo` on `stringsh mcp` (real stdio, the SDK's
client): the String Commands through the Dispatcher, their replies exactly as `stringsh -c` prints them, the bytes
outside an edit kept, refusals as isError with nothing written, bodies holding the heredoc terminator kept whole,
and `undo` / `changes` covering the MCP file tools' own changes (write_file)."""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.dialects.mcp.changeline import changed
from tests.dialects.mcp.client import STRINGSH, Client, server_env, stdio_session

DOC = b"# Doc\r\n\r\n<!-- #todo -->\r\n- old\r\n<!-- /todo -->\r\n\r\n## Notes\r\n\r\ncolour colour\r\n"
#: A connection's own topic (sessions.py): `mcp-`, the client's name, a short id.
TOPIC = r"mcp-edits-client-[0-9a-f]{6}"
ROW = r"(\d+)  \d{4}-\d\d-\d\d \d\d:\d\d:\d\d  " + TOPIC + "  "


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("mcpedits").resolve() / "ws"
    folder.mkdir()
    return folder


@pytest.fixture(scope="module")
def client(root: Path, env: dict[str, str]) -> Iterator[Client]:
    with stdio_session(root, name="edits-client", env=env) as session:
        yield session


def test_edit_block_keeps_every_byte_outside_the_block(client: Client, root: Path) -> None:
    (root / "doc.md").write_bytes(DOC)
    body = "- new\nEOF\n- after EOF"  # the terminator as a line of the body: another one is chosen
    assert changed(client.text("edit_block", {"target": "doc.md#todo", "body": body})) == (
        "re: /edit -- doc.md#todo\nEdited doc.md#todo (11 lines): 1 line replaced by 3 lines")
    assert (root / "doc.md").read_bytes() == DOC.replace(b"- old\r\n", b"- new\r\nEOF\r\n- after EOF\r\n")


def test_edit_block_refusals_write_nothing(client: Client, root: Path) -> None:
    (root / "doc.md").write_bytes(DOC)
    assert client.error("edit_block", {"target": "doc.md", "body": "x"}) == (
        "ERROR(INVALID_TARGET): Not a path#block: doc.md\n"
        "Name the file and the block: docs/setup.md#install (open lists a file's blocks).")
    assert client.error("edit_block", {"target": "doc.md#nope", "body": "x"}) == (
        "re: /edit -- doc.md#nope\nERROR(BLOCK_NOT_FOUND): Block not found: #nope in doc.md\n"
        "Available blocks: doc, todo, notes")
    assert client.error("edit_block", {"target": "doc.md#todo <<EOF", "body": "x"}) == (
        "re: /edit -- 'doc.md#todo <<EOF'\nERROR(BLOCK_NOT_FOUND): Block not found: #todo <<EOF in doc.md\n"
        "Available blocks: doc, todo, notes")
    assert client.error("edit_block", {"target": "doc.md#todo\n/rm doc.md", "body": "x"}) == (
        "ERROR(INVALID_PAYLOAD): target: a line break or NUL byte in a one-line argument\n"
        "Give target on one line (a body goes in the tool's body argument).")
    assert client.error("edit_block", {"target": "doc.md#todo", "body": "a\x00b"}) == (
        "ERROR(INVALID_PAYLOAD): body: a NUL byte\nRemove the NUL byte from the body.")
    assert (root / "doc.md").read_bytes() == DOC


def test_replace_text_all_and_lines(client: Client, root: Path) -> None:
    (root / "doc.md").write_bytes(DOC)
    assert changed(client.text("replace", {"target": "doc.md", "body": "colour\n---\ncolor\n", "all": True})) == (
        "re: /replace --all -- doc.md\nReplaced 2 occurrences in doc.md")
    assert (root / "doc.md").read_bytes() == DOC.replace(b"colour", b"color")
    (root / "lines.txt").write_text("a\nb\nc\n")
    assert changed(client.text("replace", {"target": "lines.txt:L2", "body": "B1\nB2\n"})) == (
        "re: /replace -- lines.txt:L2\nReplaced lines.txt:L2")
    assert (root / "lines.txt").read_text() == "a\nB1\nB2\nc\n"


def test_replace_refusals(client: Client, root: Path) -> None:
    (root / "lines.txt").write_text("a\nb\nc\n")
    assert client.error("replace", {"target": "lines.txt", "body": "zzz\n---\nyyy\n"}) == (
        "re: /replace -- lines.txt\nERROR(NOT_FOUND): Old text not found in lines.txt.\n"
        'Copy the old text exactly from read_text_file {"path": "lines.txt"} (spaces and line breaks count).')
    assert client.error("replace", {"target": "lines.txt", "body": "a\n"}) == (
        "re: /replace -- lines.txt\nERROR(INVALID_PAYLOAD): Substring replace body must contain a separator line:\n"
        "/replace <path>\nold text\n---\nnew text")
    assert (root / "lines.txt").read_text() == "a\nb\nc\n"


def test_patch_is_multi_file_and_atomic(client: Client, root: Path) -> None:
    (root / "p1.txt").write_text("one\ntwo\n")
    (root / "p2.txt").write_text("x\n")
    diff = ("--- a/p1.txt\n+++ b/p1.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n"
            "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+EOF\n")
    assert changed(client.text("patch", {"diff": diff})) == (
        "re: /patch\nPatched 2 files: p1.txt (+1 -1), new.txt (created, +1)")
    assert ((root / "p1.txt").read_text(), (root / "new.txt").read_text()) == ("one\nTWO\n", "EOF\n")
    bad = ("--- a/p2.txt\n+++ b/p2.txt\n@@ -1 +1 @@\n-x\n+y\n"
           "--- a/p1.txt\n+++ b/p1.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n")
    assert client.error("patch", {"diff": bad}) == (
        "re: /patch\nERROR(PATCH_FAILED): Hunk 1 of p1.txt (@@ -1,2 +1,2 @@) does not match line 2: expected 'two', "
        "the file holds 'TWO'. Nothing was written.\nRe-read those lines and redo the hunk: "
        'open {"target": "p1.txt", "fromLine": 1, "toLine": 2}')
    assert ((root / "p1.txt").read_text(), (root / "p2.txt").read_text()) == ("one\nTWO\n", "x\n")


def test_changes_lists_a_write_file_change_and_undo_takes_it_back(client: Client, root: Path) -> None:
    written = client.text("write_file", {"path": "w.txt", "content": "hello\n"})
    change = re.fullmatch(r"Successfully wrote to w\.txt \(change (\d+), undoable\)", written)
    assert change is not None
    listing = client.text("changes", {"n": 1})
    assert re.fullmatch(r"re: /changes -n 1\nChanges, newest first \(the newest 1 of \d+ kept; /changes ID shows "
                        r"one, /revert ID reverts it\):\n---\n" + ROW + r"write_file w\.txt  w\.txt \+1 -0", listing)
    assert re.search(ROW, listing).group(1) == change.group(1)  # type: ignore[union-attr]
    assert changed(client.text("undo")) == "re: /undo\nUndo: deleted w.txt (was newly created)"
    assert not (root / "w.txt").exists()


def test_changes_shows_one_and_revert_reverts_it(client: Client, root: Path) -> None:
    (root / "r.txt").write_text("red\n")
    client.text("replace", {"target": "r.txt", "body": "red\n---\nblue\n"})
    change = re.search(ROW, client.text("changes", {"n": 1})).group(1)  # type: ignore[union-attr]
    shown = client.text("changes", {"id": int(change)})
    assert re.fullmatch(rf"re: /changes {change}\nChange {change}, \S+ \S+, topic " + TOPIC + r": replace r\.txt\n---\n"
                        r"--- a/r\.txt\n\+\+\+ b/r\.txt\n@@ -1 \+1 @@\n-red\n\+blue", shown)
    reverted = changed(client.text("revert", {"id": int(change)}))
    assert re.fullmatch(rf"re: /revert {change}\nReverted change {change} as change \d+: reverted r\.txt "
                        r"\(1 line\)", reverted)  # the command's own wording
    assert (root / "r.txt").read_text() == "red\n"
    assert client.error("revert", {"id": int(change)}).startswith(f"re: /revert {change}\nERROR(INVALID_TARGET): ")
    assert client.error("revert", {"id": 99999}) == (
        "re: /revert 99999\nERROR(NOT_FOUND): No change 99999 in the journal.\nchanges {} lists the changes kept.")
    assert client.error("changes", {"id": 99999}) == (
        "re: /changes 99999\nERROR(NOT_FOUND): No change 99999 in the journal.\nchanges {} lists the changes kept.")
    assert client.error("changes", {"id": 1, "n": 1}) == (
        "ERROR(INVALID_PAYLOAD): Give id or n, not both\nid shows one change set; n lists that many.")


def test_audit_records_carry_mcp_and_the_client_name(client: Client, root: Path, env: dict[str, str]) -> None:
    (root / "audited.txt").write_text("a\n")
    client.text("replace", {"target": "audited.txt", "body": "a\n---\nb\n"})
    client.error("string", {"request": "/frob"})
    done = subprocess.run([*STRINGSH, "--root", str(root), "audit", "tail", "--json", "-n", "3"],
                          env=server_env(env), capture_output=True, text=True, timeout=60)
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["op"], r["ops"], r["frontend"], r["agent"], r["paths"], r["outcome"]) for r in records][-2:] == [
        ("mcp.replace", ["read", "apply"], "mcp", "edits-client", ["audited.txt"], "ok"),  # a record per tool call
        ("mcp.string", [], "mcp", "edits-client", [], "COMMAND_UNSUPPORTED")]
    assert all(re.fullmatch(TOPIC, r["topic"]) for r in records[-2:])  # the connection's own topic
