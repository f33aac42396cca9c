"""Bad input to `stringsh tools`: each line gets a precise refusal in the dialect's shape, nothing is written, and
the loop goes on serving."""

from __future__ import annotations

import json
import os
import select
import subprocess
from pathlib import Path

import pytest

from tests.conftest import STRINGSH
from tests.dialects.tools.client import tools

HINT = 'Send one JSON object a line: {"id": 1, "tool": "read", "args": {"file_path": "README.md"}}.'
GOOD = {"id": "last", "tool": "read", "args": {"file_path": "a.txt"}}
GOOD_REPLY = {"id": "last", "ok": True, "result": {"content": "1: a", "is_dir": False, "total_lines": 1,
                                                    "file_size": 2, "is_binary": False}}


def refused(id_: object, message: str, code: str = "INVALID_REQUEST", hint: str | None = HINT) -> dict:
    reply = {"id": id_, "ok": False, "code": code, "error": message}
    if hint is not None:
        reply["hint"] = hint
    return reply


CASES = [
    ("not json", "nope", refused(None, "The request is not valid JSON: Expecting value: line 1 column 1 (char 0)")),
    ("not utf-8", b'{"id": 1, "tool": "\xff"}', refused(None, "The request is not valid UTF-8.")),
    ("nan", '{"id": NaN, "tool": "read"}', refused(None, "The request is not valid JSON: NaN is not JSON")),
    ("array", "[1, 2]", refused(None, "The request must be a JSON object, not an array.")),
    ("string", '"read"', refused(None, "The request must be a JSON object, not a string.")),
    ("no id", '{"tool": "read", "args": {}}', refused(None, 'The request has no "id".')),
    ("object id", '{"id": {}, "tool": "read"}', refused(None, '"id" must be a string or a number, not an object.')),
    ("bool id", '{"id": true, "tool": "read"}', refused(None, '"id" must be a string or a number, not a boolean.')),
    ("no tool", '{"id": 5}', refused(5, 'The request has no "tool".')),
    ("tool type", '{"id": 5, "tool": 7}', refused(5, '"tool" must be a string, not a number.')),
    ("unknown field", '{"id": 5, "tool": "read", "args": {}, "extra": 1}',
     refused(5, "Unknown request field: extra", hint='A request has "id", "tool" and "args" only.')),
    ("unknown tool", '{"id": "x", "tool": "rm", "args": {}}',
     refused("x", "Unknown tool: rm", "UNKNOWN_TOOL", "Tools: bash, read, write, edit, apply_patch, glob, grep, "
             "git, symbols, definition, read_symbol, edit_symbol, rename, map, changes, revert, undo.")),
    ("args array", '{"id": 1, "tool": "write", "args": ["a.txt"]}',
     refused(1, '"args" must be a JSON object, not an array.')),
    ("unknown arg", '{"id": 1, "tool": "write", "args": {"file_path": "n.txt", "content": "x", "mode": 1}}',
     refused(1, "Unknown argument for write: mode", "INVALID_ARGS", "write takes: file_path, content.")),
    ("string limit", '{"id": 1, "tool": "read", "args": {"file_path": "a.txt", "limit": "5"}}',
     refused(1, "read: 'limit' must be an integer, not a string.", "INVALID_ARGS", None)),
    ("fraction", '{"id": 1, "tool": "read", "args": {"file_path": "a.txt", "offset": 2.5}}',
     refused(1, "read: 'offset' must be an integer, not a number.", "INVALID_ARGS", None)),
    ("zero limit", '{"id": 1, "tool": "read", "args": {"file_path": "a.txt", "limit": 0}}',
     refused(1, "read: 'limit' must be at least 1, not 0.", "INVALID_ARGS", None)),
    ("yes", '{"id": 1, "tool": "edit", "args": {"file_path": "a.txt", "old_string": "a", "new_string": "b", '
            '"replace_all": "yes"}}',
     refused(1, "edit: 'replace_all' must be a boolean (true or false), not a string.", "INVALID_ARGS", None)),
    ("content number", '{"id": 1, "tool": "write", "args": {"file_path": "n.txt", "content": 5}}',
     refused(1, "write: 'content' must be a string, not a number.", "INVALID_ARGS", None)),
    ("missing content", '{"id": 1, "tool": "write", "args": {"file_path": "n.txt"}}',
     refused(1, "write needs 'content' (string).", "INVALID_ARGS", None)),
    ("files not strings", '{"id": 1, "tool": "git", "args": {"action": "commit", "message": "m", "files": [1]}}',
     refused(1, "git: 'files' must be an array of strings.", "INVALID_ARGS", None)),
    ("huge timeout", '{"id": 1, "tool": "bash", "args": {"command": "touch n.txt", "timeout_ms": 1e400}}',
     refused(1, "bash: 'timeout_ms' must be an integer, not a number.", "INVALID_ARGS", None)),
    ("empty path", '{"id": 1, "tool": "write", "args": {"file_path": "", "content": "x"}}',
     refused(1, "'file_path' must not be empty.", "INVALID_ARGS", None)),
]


@pytest.mark.parametrize(("line", "expected"), [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_bad_line_is_refused_and_the_loop_goes_on(ws: Path, line: str | bytes, expected: dict) -> None:
    (ws / "a.txt").write_text("a\n")
    assert tools(ws, line, GOOD) == [expected, GOOD_REPLY]
    assert sorted(p.name for p in ws.iterdir() if p.name != ".stringsh") == ["a.txt"]


def test_all_bad_lines_in_one_session(ws: Path) -> None:
    (ws / "a.txt").write_text("a\n")
    replies = tools(ws, *(case[1] for case in CASES), "", "   ", GOOD)  # blank lines are skipped
    assert replies == [*(case[2] for case in CASES), GOOD_REPLY]
    assert sorted(p.name for p in ws.iterdir() if p.name != ".stringsh") == ["a.txt"]


def test_oversized_line_is_refused_and_skipped(ws: Path) -> None:
    (ws / "a.txt").write_text("a\n")
    huge = json.dumps({"id": 1, "tool": "write", "args": {"file_path": "big.txt", "content": "x" * (17 << 20)}})
    assert tools(ws, huge, GOOD) == [
        refused(None, "The request line is over 16777216 bytes; nothing was done.",
                hint="Send smaller requests (write a large file in parts with edit)."), GOOD_REPLY]
    assert not (ws / "big.txt").exists()


def test_ids_are_echoed_with_their_json_type(ws: Path) -> None:
    (ws / "a.txt").write_text("a\n")
    replies = tools(ws, *({**GOOD, "id": id_} for id_ in (7, "7", 7.5, -1, "")))
    assert [(reply["id"], type(reply["id"])) for reply in replies] == \
        [(7, int), ("7", str), (7.5, float), (-1, int), ("", str)]


def test_each_reply_is_flushed_before_the_next_request(ws: Path) -> None:
    """An agent waits for each reply before sending the next request: the reply must come while stdin is open."""
    (ws / "a.txt").write_text("a\n")
    proc = subprocess.Popen([*STRINGSH, "tools"], cwd=ws, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env={**os.environ, "TERM": "dumb"})
    assert proc.stdin is not None and proc.stdout is not None
    try:
        for id_ in (1, 2):
            proc.stdin.write(json.dumps({**GOOD, "id": id_}).encode() + b"\n")
            proc.stdin.flush()
            assert select.select([proc.stdout], [], [], 60)[0], "no reply while stdin is open"
            assert json.loads(proc.stdout.readline()) == {**GOOD_REPLY, "id": id_}
    finally:
        proc.stdin.close()
        assert proc.wait(60) == 0
