"""The hint matrix, generated: each refusal whose hint names a next step (reads, writes, edits, patches, numbered
bodies, too-large, not-found, is-a-folder, encoding, undo) provoked through every dialect's real server, and no
hint outside String Commands naming a String Command (`/open …`) or a `!` shell line: MCP, the JSON tools and
OPERATOR_CMD each word a step as their own tool or action (errors.Step, each dialect's hinting.py).

One real server per dialect for the whole run, as in test_guard_matrix.py: String Commands a `Dispatcher` (the
engine every String front end runs), `stringsh tools` and `stringsh operator` processes, and an MCP stdio session.
Each refusal is tried in every dialect that can meet it (`REFUSALS`); String Commands' hint must hold a String
Command (the refusal's hint is a step, worded), the others' none. The vocabulary itself is covered whole too: every
verb of `errors.VERBS` worded by every dialect, none as a String Command."""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from stringsh.dialects.operator.actions.hinting import operator_step
from stringsh.dialects.tools.hinting import tools_step
from stringsh.errors import VERBS, Step, string_step
from tests.dialects.operator.operator_support import b64, block

#: A String Command a hint would name (after a blank, a paren or the start), or a `!program` shell line.
STRING_COMMAND = re.compile(r"(?:^|[\s(\"'])(?:/(?:open|ls|edit|write|append|undo|changes|revert|stat|patch|replace|"
                            r"grep|mkdir|rm|mv|cp|help|symbols|map|glob)\b|![a-z])")
LIMIT = 2000
POLICY = f'[operator]\nconfirm = "allow"\n\n[limits]\nmax_read_bytes = {LIMIT}\nmax_write_bytes = {LIMIT}\n'
BIG = "x" * (LIMIT + 10)
NUMBERED = "1 | def main():\n2 |     return 1\n"
TWO_DEFS = "def main():\n    return 2\n\n\ndef more():\n    pass\n"
BAD_HUNK = "--- a/t.txt\n+++ b/t.txt\n@@ -1,2 +1,2 @@\n one\n-TWO\n+2\n"


def seed(root: Path) -> None:
    (root / "src").mkdir()
    (root / "t.txt").write_text("one\ntwo\n")
    (root / "app.py").write_text("def main():\n    return 1\n")
    (root / "big.txt").write_text(BIG)
    (root / "mixed.txt").write_bytes("caf\u00e9 ".encode() + b"caf\xe9\n")  # UTF-8 and Latin-1: ambiguous


def op(action: str, path: str, **fields: str) -> str:
    lines = ["version: 1", "id: h", f"action: {action}", f"path: {path}"]
    return block(*lines, *(f"{key}: {value}" for key, value in fields.items()))


#: refusal -> {dialect: the request that meets it}; a dialect left out cannot meet that refusal (no such tool).
REFUSALS: dict[str, dict[str, Any]] = {
    "not found": {"string": "/open nope.txt", "mcp": ("read_text_file", {"path": "nope.txt"}),
                  "operator": op("fs.read", "nope.txt")},
    "not found, a close name": {"string": "/open t.tx", "mcp": ("open", {"target": "t.tx"}),
                                "operator": op("fs.applyEdits", "t.tx", edits_b64=b64(json.dumps(
                                    {"version": 1, "edits": [{"op": "replaceAll", "find": "a", "text": "b"}]})))},
    "is a folder": {"string": "/append src <<EOF\nx\nEOF", "mcp": ("read_text_file", {"path": "src"}),
                    "operator": op("fs.readSlice", "src")},
    "too large to read": {"string": "/edit big.txt", "mcp": ("read_text_file", {"path": "big.txt"}),
                          "tools": {"tool": "read", "args": {"file_path": "big.txt"}},
                          "operator": op("fs.applyEdits", "big.txt", edits_b64=b64(json.dumps(
                              {"version": 1, "edits": [{"op": "replaceAll", "find": "x", "text": "y"}]})))},
    "too large to write": {"string": f"/write new.txt <<EOF\n{BIG}\nEOF",
                           "mcp": ("write_file", {"path": "new.txt", "content": BIG}),
                           "tools": {"tool": "write", "args": {"file_path": "new.txt", "content": BIG}}},
    "ambiguous encoding": {"string": "/replace mixed.txt <<EOF\ncaf\n---\ncafe\nEOF",
                           "mcp": ("edit_file", {"path": "mixed.txt", "edits": [{"oldText": "caf",
                                                                                  "newText": "cafe"}]}),
                           "tools": {"tool": "edit", "args": {"file_path": "mixed.txt", "old_string": "caf",
                                                              "new_string": "cafe", "replace_all": True}},
                           "operator": op("fs.applyEdits", "mixed.txt", edits_b64=b64(json.dumps(
                               {"version": 1, "edits": [{"op": "replaceAll", "find": "caf", "text": "cafe"}]})))},
    "symbol body, force": {"string": "/edit app.py#main <<EOF\ndef other():\n    pass\nEOF",
                           "mcp": ("replace_symbol", {"target": "app.py#main", "body": "def main(:\n    pass\n"}),
                           "tools": {"tool": "edit_symbol", "args": {"file_path": "app.py", "symbol": "main",
                                                                     "new_body": "def other():\n    pass\n"}},
                           "operator": op("fs.editSymbol", "app.py", symbol="main",
                                          body_b64=b64("def other():\n    pass\n"))},
    "one definition, insert after": {
        "string": f"/edit app.py#main <<EOF\n{TWO_DEFS}EOF",
        "mcp": ("replace_symbol", {"target": "app.py#main", "body": TWO_DEFS}),
        "tools": {"tool": "edit_symbol", "args": {"file_path": "app.py", "symbol": "main", "new_body": TWO_DEFS}},
        "operator": op("fs.editSymbol", "app.py", symbol="main", body_b64=b64(TWO_DEFS))},
    "empty body": {"string": "/edit app.py#main <<EOF\n\nEOF",
                   "mcp": ("replace_symbol", {"target": "app.py#main", "body": "\n"}),
                   "tools": {"tool": "edit_symbol", "args": {"file_path": "app.py", "symbol": "main",
                                                             "new_body": "\n"}},
                   "operator": op("fs.editSymbol", "app.py", symbol="main", body_b64=b64("\n"))},
    "numbered body": {"string": f"/edit app.py#main <<EOF\n{NUMBERED}EOF",
                      "mcp": ("replace_symbol", {"target": "app.py#main", "body": NUMBERED}),
                      "tools": {"tool": "edit_symbol", "args": {"file_path": "app.py", "symbol": "main",
                                                                "new_body": NUMBERED}},
                      "operator": op("fs.editSymbol", "app.py", symbol="main", body_b64=b64(NUMBERED))},
    "lines past the end": {"string": "/replace t.txt:L9 <<EOF\nx\nEOF",
                           "mcp": ("replace", {"target": "t.txt:L9", "body": "x\n"})},
    "old text not found": {"string": "/replace t.txt <<EOF\nzzz\n---\nyyy\nEOF",
                           "mcp": ("replace", {"target": "t.txt", "body": "zzz\n---\nyyy\n"})},
    "patch failed": {"string": f"/patch <<EOF\n{BAD_HUNK}EOF", "mcp": ("patch", {"diff": BAD_HUNK}),
                     "operator": op("fs.patch", "t.txt", patch_b64=b64(BAD_HUNK))},
    "nothing to undo": {"string": "/undo", "mcp": ("undo", {}), "tools": {"tool": "undo", "args": {}}},
    "no such change": {"string": "/revert 99999", "mcp": ("revert", {"id": 99999}),
                       "tools": {"tool": "changes", "args": {"id": 99999}}},
}
DIALECTS = ("string", "mcp", "tools", "operator")


class Server:
    """One dialect's real server: `hint` sends one request and gives the refusal's code and hint."""

    def __init__(self, dialect: str, root: Path) -> None:
        self.dialect = dialect
        self.closers: list[Callable[[], object]] = []
        if dialect == "string":
            from stringsh.dispatcher import Dispatcher

            self.dispatcher = Dispatcher(root)
            self.closers.append(self.dispatcher.close)
        elif dialect == "mcp":
            from tests.dialects.mcp.client import stdio_session

            session = stdio_session(root, env=dict(os.environ))
            self.client = session.__enter__()
            self.closers.append(lambda: session.__exit__(None, None, None))
        else:
            self.process = subprocess.Popen([sys.executable, "-m", "stringsh", dialect], cwd=root, text=True,
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                            env={**os.environ, "TERM": "dumb"}, start_new_session=True)
            self.closers.append(self._stop)

    def _stop(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)

    def close(self) -> None:
        for close in reversed(self.closers):
            close()

    def hint(self, request: Any) -> tuple[str, str]:
        """(code, hint) of the refusal: the lines after the `ERROR(CODE): message` line of a text reply (a
        message of one line: every refusal here), the JSON reply's `hint`, OPERATOR_RESULT's details."""
        if self.dialect in ("string", "mcp"):
            if self.dialect == "string":
                text = self.dispatcher.execute(request).text
            else:
                result = self.client.call(*request)
                assert result.is_error, request
                text = result.content[0].text  # type: ignore[union-attr]
            found = re.search(r"^ERROR\(([A-Z_0-9]+)\): [^\n]*\n?", text, re.M)
            assert found, text
            return found.group(1), text[found.end():]
        assert self.process.stdin is not None and self.process.stdout is not None
        if self.dialect == "tools":
            self.process.stdin.write(json.dumps({"id": 1, **request}) + "\n")
            self.process.stdin.flush()
            reply = json.loads(self.process.stdout.readline())
            assert not reply["ok"], reply
            return reply["code"], reply.get("hint", "")
        self.process.stdin.write(request)
        self.process.stdin.flush()
        answer = list(iter(self.process.stdout.readline, "END_OPERATOR_RESULT\n"))
        fields = dict(line.rstrip("\n").split(": ", 1) for line in answer[1:] if ": " in line)
        assert fields["ok"] == "false", fields
        details = binascii.a2b_base64(fields.get("details_b64", "")).decode()
        code = re.match(r"(?:Patch failed: )?([A-Z][A-Z_]+): ", fields["summary"])
        return (code.group(1) if code else fields["summary"]), details


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Path]:
    root = tmp_path / "ws"
    root.mkdir()
    seed(root)
    config = Path(os.environ["STRINGSH_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "policy.toml").write_text(POLICY)
    yield root


@pytest.mark.parametrize("dialect", DIALECTS)
def test_no_hint_outside_string_commands_names_a_string_command(dialect: str, workspace: Path) -> None:
    """Every refusal the dialect can meet has a hint; String Commands' names its String Command, no other
    dialect's does (nor a `!` shell line)."""
    server = Server(dialect, workspace)
    wrong, tried = [], 0
    try:
        for refusal, requests in REFUSALS.items():
            if dialect not in requests:
                continue
            code, hint = server.hint(requests[dialect])
            tried += 1
            named = STRING_COMMAND.search(hint)
            if dialect == "string" and (named is None) != (refusal == "numbered body"):
                wrong.append(f"{refusal}: {code}: {hint!r} (a String Command expected)")
            elif dialect != "string" and (named is not None or not hint):
                wrong.append(f"{refusal}: {code}: {hint!r}")
    finally:
        server.close()
    assert tried and wrong == [], "\n".join(wrong)


LIMITS = "the policy's [limits] max_read_bytes raises the limit."
FORCE_MAIN = {"mcp": 'replace_symbol {"target": "app.py#main", "force": true}',
              "tools": 'edit_symbol {"file_path": "app.py", "symbol": "main", "force": true}',
              "operator": 'fs.editSymbol {"path": "app.py", "symbol": "main", "force": true}'}
#: dialect -> refusal -> its hint, exactly.
EXACT: dict[str, dict[str, str]] = {
    "string": {
        "is a folder": "Use /ls src",
        "too large to read": f"Read it in windows: /open big.txt --from N, or !head, !tail or !grep it; {LIMITS}",
        "ambiguous encoding": "Read it with /open mixed.txt; repair its bytes or convert it (!iconv), then edit it.",
        "empty body": "To empty it on purpose, send the empty body again with --force: /edit --force app.py#main. "
                      "Nothing was written.",
        "patch failed": "Re-read those lines and redo the hunk: /open t.txt:L1-L2",
        "nothing to undo": "/changes lists the changes there are.",
    },
    "mcp": {
        "not found, a close name": 'Did you mean t.txt? list_directory {"path": "."} shows what is there.',
        "is a folder": 'Use list_directory {"path": "src"}',
        "too large to read": 'Read it in windows: open {"target": "big.txt", "fromLine": 1}, or bash\'s head, tail '
                             f"or grep it; {LIMITS}",
        "ambiguous encoding": 'Read it with read_text_file {"path": "mixed.txt"}; repair its bytes or convert it '
                              "(bash's iconv), then edit it.",
        "one definition, insert after": 'Send one definition; add others with insert_symbol {"target": '
                                        '"app.py#main", "position": "after"}. To write it anyway: '
                                        f"{FORCE_MAIN['mcp']}. Nothing was written.",
        "lines past the end": 'Recovery: run read_text_file {"path": "t.txt"} for current line numbers.',
        "patch failed": 'Re-read those lines and redo the hunk: open {"target": "t.txt", "fromLine": 1, "toLine": 2}',
        "nothing to undo": "changes {} lists the changes there are.",
    },
    "tools": {
        "too large to read": 'Read it in windows: bash {"command": "sed -n 1,400p big.txt"}, or bash\'s head, tail '
                             f"or grep it; {LIMITS}",
        "too large to write": "Write it in parts: write with the first part, then edit to add the rest after its last "
                              "line; the policy's [limits] max_write_bytes raises the limit.",
        "empty body": f"To empty it on purpose, send the empty body again with --force: {FORCE_MAIN['tools']}. "
                      "Nothing was written.",
        "no such change": "changes {} lists the changes kept.",
    },
    "operator": {
        "not found": 'fs.list {"path": "."} shows what is there.',
        "too large to read": 'Read it in windows: fs.readSlice {"path": "big.txt", "start": 1, "lines": 400}, or a '
                             f"shell's head, tail or grep it; {LIMITS}",
        "symbol body, force": 'To add a definition use fs.editSymbol {"path": "app.py", "symbol": "main", '
                              f'"position": "after"}} (or before); to write it anyway: {FORCE_MAIN["operator"]}. '
                              "Nothing was written.",
        "numbered body": "Remove the line numbers (the 'N | ' at the start of each line) and send the code alone.",
        "patch failed": "Read t.txt lines 1-2 again and redo the hunk.",
    },
}


@pytest.mark.parametrize("dialect", DIALECTS)
def test_hints_read_exactly(dialect: str, workspace: Path) -> None:
    server = Server(dialect, workspace)
    try:
        got = {refusal: server.hint(REFUSALS[refusal][dialect])[1] for refusal in EXACT[dialect]}
    finally:
        server.close()
    assert got == EXACT[dialect]


WORDERS: dict[str, Callable[[Step], str]] = {"tools": tools_step, "operator": operator_step}


def every_step() -> list[Step]:
    """Each verb with the arguments it reads, in each of its forms."""
    return [Step("read", path="a b.md"), Step("read", path="a.md", window="from"), Step("read", window="range"),
            Step("read", path="a.md", start=3, end=5), Step("list", path="src"), Step("list", path=""),
            Step("stat", path="a.md"), Step("stat", path=""), Step("view", target="a.py#f"),
            Step("view", target="a.txt"), Step("edit", target="a.md#x"), Step("edit", target="a.py#f", where="--after"),
            Step("force", target="a.py#f"), Step("force", target="a.py#f", where="--before"),
            Step("force", target="a.txt"), Step("beside", target="a.py#f"), Step("undo"), Step("undo", skip=True),
            Step("changes"), Step("revert", change=7), Step("write_parts", path="a.md"),
            Step("programs", command="head tail grep"), Step("shell", command="iconv -f X -t UTF-8 'a b' -o c")]


def test_every_verb_is_tried() -> None:
    assert {step.verb for step in every_step()} == VERBS


@pytest.mark.parametrize("dialect", ["mcp", "tools", "operator"])
def test_every_step_is_worded_without_a_string_command(dialect: str) -> None:
    if dialect == "mcp":
        pytest.importorskip("mcp")
        from stringsh.dialects.mcp.hinting import mcp_step

        words = [mcp_step(step, tool) for step in every_step() for tool in (None, "edit_block", "replace_symbol")]
    else:
        words = [WORDERS[dialect](step) for step in every_step()]
    assert [w for w in words if STRING_COMMAND.search(w) or not w] == []
    assert all(STRING_COMMAND.search(string_step(step)) for step in every_step()
               if step.verb not in ("beside",))


def test_values_are_json_in_every_tool_call() -> None:
    """A value holding a quote, a backslash or a newline stays one JSON value: quoting is safe by construction."""
    from stringsh.dialects.mcp.hinting import mcp_step

    name = 'we"ird\\na\nme.txt'
    worded = mcp_step(Step("read", path=name))
    assert worded == 'read_text_file {"path": "we\\"ird\\\\na\\nme.txt"}'
    assert json.loads(worded.split(" ", 1)[1]) == {"path": name}
    shell = tools_step(Step("shell", command="iconv -f X -t UTF-8 'it''s' -o x"))
    assert json.loads(shell.split(" ", 1)[1]) == {"command": "iconv -f X -t UTF-8 'it''s' -o x"}
    assert base64.b64decode(b64("x")) == b"x"
