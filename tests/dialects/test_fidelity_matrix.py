"""the README's text fidelity table, checked: the same request (read, write over an existing file, exact edit,
patch) through every dialect (String Commands, OPERATOR_CMD, JSON tools, MCP), each on a fresh copy of every
fixture, leaves the same bytes on disk and the same journal rows, and each reply has its dialect's shape. The
dialects are driven in-process, by the functions their front ends call for each request."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from stringsh.dialects.mcp.calls import Call
from stringsh.dialects.mcp.shaped import Shaped, text_of
from stringsh.dialects.mcp.textedit import EditOperation, apply_edits
from stringsh.dialects.mcp.tools_files import read_text, write
from stringsh.dialects.operator.actions import run_action
from stringsh.dialects.tools.cli import answer
from stringsh.dispatcher import Dispatcher
from tests.dialects.operator.actions_support import Recorder, command

FIXTURES = {
    "crlf.txt": b"alpha\r\nport = 3000\r\nomega\r\n",
    "bom.txt": b"\xef\xbb\xbfalpha\nport = 3000\nomega\n",
    "utf16.txt": "\ufeffalpha\r\nport = 3000\r\nomega\r\n".encode("utf-16-le"),
    "latin1.txt": b"caf\xe9\nport = 3000\nomega\n",
    "cp1252.txt": b"\x93q\x94\nport = 3000\nomega\n",
    "nofinal.txt": b"alpha\nport = 3000\nomega",
    "mixed.txt": b"alpha\r\nport = 3000\nomega\r\n",
}
#: The exact edit, typed with `\n` as a read shows it; the Latin-1 file's first line differs, so it has its own.
OLD, NEW = "port = 3000\nomega", "port = 8080\nomega"
EDITED = {
    "crlf.txt": b"alpha\r\nport = 8080\r\nomega\r\n",
    "bom.txt": b"\xef\xbb\xbfalpha\nport = 8080\nomega\n",
    "utf16.txt": "\ufeffalpha\r\nport = 8080\r\nomega\r\n".encode("utf-16-le"),
    "latin1.txt": b"caf\xe9\nport = 8080\nomega\n",  # edited in Latin-1, its own encoding
    "cp1252.txt": b"\x93q\x94\nport = 8080\nomega\n",  # detected (0x93, 0x94) and edited as cp1252
    "nofinal.txt": b"alpha\nport = 8080\nomega",
    "mixed.txt": b"alpha\r\nport = 8080\nomega\r\n",
}
#: What every read shows: `\n` endings, no `\r`, Latin-1 as one character a byte.
FIRST = {"latin1.txt": "caf\u00e9", "cp1252.txt": "\u201cq\u201d"}
SHOWN = {name: FIRST.get(name, "alpha") + "\nport = 3000\nomega"
         + ("" if name == "nofinal.txt" else "\n") for name in FIXTURES}
#: A whole write of `\n` text: an existing file keeps encoding, BOM and dominant ending; the final newline is given.
CONTENT = "th\u00e9\ntwo\n"
WRITTEN = {
    "crlf.txt": b"th\xc3\xa9\r\ntwo\r\n",
    "bom.txt": b"\xef\xbb\xbfth\xc3\xa9\ntwo\n",
    "utf16.txt": "\ufeffth\u00e9\r\ntwo\r\n".encode("utf-16-le"),
    "latin1.txt": b"th\xe9\ntwo\n",
    "cp1252.txt": b"th\xe9\ntwo\n",
    "nofinal.txt": b"th\xc3\xa9\ntwo\n",
    "mixed.txt": b"th\xc3\xa9\r\ntwo\r\n",
}
DIALECTS = ("string", "operator", "tools", "mcp")
CHANGES_ROW = re.compile(r"^\d+ .*?  (\S+ (?:\+\d+ -\d+|binary))$", re.M)
#: `/changes` counts lines of UTF-8 text; a UTF-16 or Latin-1 file's change is listed as binary.
COUNTED = {name: "binary" if name in ("utf16.txt", "latin1.txt", "cp1252.txt") else "+1 -1" for name in FIXTURES}


@pytest.fixture
def spaces(tmp_path: Path) -> Iterator[dict[str, Dispatcher]]:
    """A fresh copy of every fixture per dialect, each with its dispatcher (whose engine every dialect uses)."""
    made = {}
    for dialect in DIALECTS:
        root = tmp_path / dialect
        root.mkdir()
        for name, data in FIXTURES.items():
            (root / name).write_bytes(data)
        made[dialect] = Dispatcher(root)
    yield made
    for dispatcher in made.values():
        dispatcher.close()


def on_disk(dispatcher: Dispatcher) -> dict[str, bytes]:
    return {name: (dispatcher.workspace.root / name).read_bytes() for name in FIXTURES}


def journal(dispatcher: Dispatcher) -> list[str]:
    """The `path +added -removed` (or `path binary`) part of every `/changes` row, oldest first."""
    return CHANGES_ROW.findall(dispatcher.execute("/changes").text)[::-1]


def operator(dispatcher: Dispatcher, action: str, **fields: str) -> tuple[bool, str, str | None]:
    result = run_action(dispatcher.workspace, command(action, **fields), Recorder(), topic="operator")
    return result.ok, result.summary, result.details


def tools(dispatcher: Dispatcher, tool: str, **args: object) -> dict[str, object]:
    return answer(dispatcher.workspace, json.dumps({"id": 1, "tool": tool, "args": args}).encode())


def mcp(dispatcher: Dispatcher, work: Callable[[Call], str | Shaped]) -> str:
    """An MCP tool's text, or `ERROR(CODE)` for a refusal (the shape Calls.run gives it)."""
    from stringsh.errors import StringError

    try:
        return text_of(work(Call(dispatcher.workspace, None, {})))
    except StringError as exc:
        return f"ERROR({exc.code})"


def test_read_shows_lf_and_latin1_everywhere(spaces: dict[str, Dispatcher]) -> None:
    for name, shown in SHOWN.items():
        opened = spaces["string"].execute(f"/open {name}").text
        assert "\r" not in opened and all(line in opened for line in shown.splitlines()), opened
        assert operator(spaces["operator"], "fs.read", path=name) == (True, "Read file", shown)
        reply = tools(spaces["tools"], "read", file_path=name)
        numbered = "\n".join(f"{n}: {line}" for n, line in enumerate(shown.splitlines(), 1))
        assert reply["ok"] and reply["result"]["content"] == numbered, reply
        assert mcp(spaces["mcp"], lambda call, name=name: read_text(call, name, None, None)) == shown
    for dispatcher in spaces.values():
        assert on_disk(dispatcher) == FIXTURES and journal(dispatcher) == []


def test_exact_edit_same_bytes_and_journal(spaces: dict[str, Dispatcher]) -> None:
    for number, name in enumerate(FIXTURES, 1):
        old = OLD
        string = spaces["string"].execute(f"/replace {name}\n{old}\n---\n{NEW}\n")
        edits = json.dumps({"version": 1, "edits": [{"op": "replaceFirst", "find": old, "text": NEW}]})
        op = operator(spaces["operator"], "fs.applyEdits", path=name, edits_b64=edits)
        tool = tools(spaces["tools"], "edit", file_path=name, old_string=old, new_string=NEW)
        mcp_reply = mcp(spaces["mcp"], lambda call, name=name, old=old: apply_edits(
            call, name, [EditOperation(old, NEW)], dry_run=False))
        assert string.text.startswith(f"re: /replace {name}\nReplaced 1 occurrence in {name}"), string.text
        assert op == (True, "Applied edits", None)
        assert tool == {"id": 1, "ok": True, "result": {"success": True, "lines_changed": 2, "replacements": 1,
                                                        "change_id": number}}
        assert mcp_reply.startswith("```diff\n") and mcp_reply.endswith(", undoable."), mcp_reply
    rows = [f"{name} {COUNTED[name]}" for name in FIXTURES]
    for dialect, dispatcher in spaces.items():
        assert on_disk(dispatcher) == EDITED, dialect
        assert journal(dispatcher) == rows, dialect


def test_write_over_existing_same_bytes_and_journal(spaces: dict[str, Dispatcher]) -> None:
    for number, name in enumerate(FIXTURES, 1):
        string = spaces["string"].execute(f"/write --force {name}\n{CONTENT}")
        assert string.ok and string.text.startswith(f"re: /write --force {name}\nWritten: {name}"), string.text
        assert operator(spaces["operator"], "fs.write", path=name, content_b64=CONTENT) == (True, "Wrote file", None)
        assert tools(spaces["tools"], "write", file_path=name, content=CONTENT) == {
            "id": 1, "ok": True, "result": {"success": True, "file_path": name, "change_id": number}}
        assert mcp(spaces["mcp"], lambda call, name=name: write(call, name, CONTENT)).startswith(
            f"Successfully wrote to {name}")
    rows = [journal(spaces["string"])]
    assert len(rows[0]) == len(FIXTURES)
    for dialect, dispatcher in spaces.items():
        assert on_disk(dispatcher) == WRITTEN, dialect
        assert journal(dispatcher) == rows[0], dialect


def test_patch_same_bytes_and_journal(spaces: dict[str, Dispatcher]) -> None:
    """Patches: String Commands' `/patch` and OPERATOR_CMD's fs.patch (unified diffs), the JSON tools' apply_patch
    (Codex's format, which `/patch` also takes)."""
    for name in FIXTURES:
        first = FIRST.get(name, "alpha")
        diff = f"--- a/{name}\n+++ b/{name}\n@@ -1,2 +1,2 @@\n {first}\n-port = 3000\n+port = 8080\n"
        string = spaces["string"].execute(f"/patch\n{diff}")
        op = operator(spaces["operator"], "fs.patch", path=name, patch_b64=diff)
        codex = f"*** Begin Patch\n*** Update File: {name}\n@@\n {first}\n-port = 3000\n+port = 8080\n*** End Patch\n"
        tool = tools(spaces["tools"], "apply_patch", input=codex)
        assert string.ok, string.text
        assert op == (True, "Patched file", None)
        assert tool["ok"] and tool["result"]["summary"] == f"Patched {name} (+1 -1)", tool
    rows = [f"{name} {COUNTED[name]}" for name in FIXTURES]
    for dialect in ("string", "operator", "tools"):
        assert on_disk(spaces[dialect]) == EDITED, dialect
        assert journal(spaces[dialect]) == rows, dialect
