"""The failures fuzzing the front ends found, each reproduced in a real process and answered exactly, the next request
served after it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import STRINGSH
from tests.dialects.mcp.client import server_env

DEEP = "[" * 1000 + "]" * 1000


def served(root: Path, args: list[str], lines: list[str]) -> list[str]:
    data = "".join(f"{line}\n" for line in lines).encode("utf-8")
    done = subprocess.run([*STRINGSH, "--root", str(root), *args], input=data, capture_output=True, timeout=120,
                          cwd=root, env=server_env())
    assert b"Traceback" not in done.stderr, done.stderr.decode()
    assert done.returncode == 0
    return done.stdout.decode("utf-8").split("\n")[:-1]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return folder


def test_daemon_json_answers_a_lone_surrogate_id_escaped(root: Path) -> None:
    """The request runs and its reply carries the id as the same JSON escape it came in (decoded, the same
    value); a topic or command holding one is answered the same way, and the next request is served. (Replies
    come as each is ready: a refusal at admission before a write still running.)"""
    replies = served(root, ["daemon", "--json"], [
        r'{"id":"\ud800","cmd":"/write fz/s.txt hi"}',
        r'{"id":"2","cmd":"/help","topic":"\udc00"}',
        r'{"id":"3","cmd":"/write fz/t.txt a\ud800b"}',
        '{"id":"4","cmd":"/ls fz"}',
    ])
    assert len(replies) == 4
    assert set(replies) == {
        r'{"id": "\ud800", "ok": true, "code": null, "topic": "main", "content": "re: /write fz/s.txt hi\nCreated: '
        r'fz/s.txt (3 bytes, 1 line)", "path": "fz/s.txt"}',
        r'{"id": "2", "ok": false, "code": "INVALID_TARGET", "topic": "\udc00", "content": "re: [2] /help\n'
        r"ERROR(INVALID_TARGET): Invalid topic: \udc00\nUse main, a tab name of letters, digits, '_' or '-', or "
        r'bash:<name>."}',
        r'{"id": "3", "ok": false, "code": "ENCODING", "topic": "main", "content": "re: [3] /write fz/t.txt '
        r'a\ud800b\nERROR(ENCODING): Text for fz/t.txt has a character UTF-8 cannot hold at index 1; nothing was '
        r'written."}',
        r'{"id": "4", "ok": true, "code": null, "topic": "main", "content": "re: [4] /ls fz\nListing fz/\n---\n  '
        r's.txt"}',
    }
    assert "\ud800" in {json.loads(reply)["id"] for reply in replies}
    assert (root / "fz" / "s.txt").read_text() == "hi\n"
    assert not (root / "fz" / "t.txt").exists()


def test_daemon_json_refuses_deep_nesting(root: Path) -> None:
    replies = served(root, ["daemon", "--json"], [DEEP, '{"id": 2, "cmd": "/ls"}'])
    assert json.loads(replies[0]) == {
        "id": None, "ok": False, "code": "INVALID_PAYLOAD", "topic": "main",
        "content": "re: (invalid request)\nERROR(INVALID_PAYLOAD): Malformed JSON request: nested deeper than 64 "
                   'levels\nSend one object per line: {"id": "1", "cmd": "/help", "topic": "main"}'}
    assert json.loads(replies[1])["id"] == 2


def test_tools_refuse_deep_nesting_and_say_not_a_change_id(root: Path) -> None:
    replies = served(root, ["tools"], [
        DEEP,
        '{"id": 1, "tool": "read", "args": {"file_path": ' + "[" * 70 + "]" * 70 + "}}",
        '{"id": 2, "tool": "revert", "args": {"id": 100000000000000000000}}',
        '{"id": "\\ud800", "tool": "changes", "args": {"id": 100000000000000000000}}',
    ])
    hint = 'Send one JSON object a line: {"id": 1, "tool": "read", "args": {"file_path": "README.md"}}.'
    not_an_id = {"ok": False, "code": "INVALID_PAYLOAD", "error": "Not a change id: 100000000000000000000",
                 "hint": "A change id is a whole number above 0, as /changes lists them."}
    assert [json.loads(reply) for reply in replies] == [
        {"id": None, "ok": False, "code": "INVALID_REQUEST",
         "error": "The request is nested deeper than 64 levels; nothing was done.", "hint": hint},
        {"id": None, "ok": False, "code": "INVALID_REQUEST",
         "error": "The request is nested deeper than 64 levels; nothing was done.", "hint": hint},
        {"id": 2, **not_an_id},
        {"id": "\ud800", **not_an_id},
    ]
    assert replies[3].startswith(r'{"id": "\ud800", ')


def refused(request_id: object, code: int, message: str) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": f"{message}; nothing was done"}}


def test_mcp_answers_what_the_sdk_would_drop(root: Path) -> None:
    surrogate = r"Invalid Request: a string holds a lone surrogate (a \ud800-\udfff escape), which no text can"
    replies = served(root, ["mcp"], [
        json.dumps({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
        '{"jsonrpc":"2.0","method":"notifications/initialized"}',
        r'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"\ud800"}}',
        r'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_file","arguments":'
        r'{"path":"w.txt","content":"a\udc00b"}}}',
        r'{"jsonrpc":"2.0","id":"\udc00","method":"ping"}',
        "not json",
        DEEP,
        b"\xff".decode("latin-1"),  # written as UTF-8: c3 bf, valid; the undecodable case is below
        '{"jsonrpc":"2.0","id":3,"method":"ping"}',
    ])
    got = [json.loads(reply) for reply in replies[1:]]
    assert got == [
        refused(1, -32600, surrogate),
        refused(2, -32600, surrogate),
        refused("\udc00", -32600, surrogate),
        refused(None, -32700, "Parse error: Expecting value: line 1 column 1 (char 0)"),
        refused(None, -32600, "Invalid Request: the message is nested deeper than 64 levels"),
        refused(None, -32700, "Parse error: Expecting value: line 1 column 1 (char 0)"),
        {"jsonrpc": "2.0", "id": 3, "result": {}},
    ]
    assert replies[3].startswith(r'{"jsonrpc":"2.0","id":"\udc00",')
    assert not (root / "w.txt").exists()


def test_mcp_refuses_bytes_that_are_not_utf8(root: Path) -> None:
    done = subprocess.run([*STRINGSH, "--root", str(root), "mcp"], input=b'{"id":1,"x":"\xff"}\n', timeout=120,
                          capture_output=True, cwd=root, env=server_env())
    assert json.loads(done.stdout) == refused(None, -32700, "Parse error: byte 0xff at offset 13 is not UTF-8")
