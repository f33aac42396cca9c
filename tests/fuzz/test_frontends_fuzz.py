"""Every front end's real reader, in a real `python -m stringsh` process, fed a batch of fuzzed lines and its stdin
closed at once: no crash, no traceback, no INTERNAL_ERROR, exactly one reply per request read, and every
file that exists was written by a request that was answered ok (a refused request changes no file).

How many replies each batch must get is what the reader makes of the bytes: String Commands lines are cut into
requests by the one stream reader every String front end uses (`read_requests`), OPERATOR_CMD blocks by the
block scanner, JSON lines are one request each (`mcp`: JSON-RPC's rules, a notification gets no reply)."""

from __future__ import annotations

import base64
import io
import json
import re
import subprocess
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from stringsh.protocol.operator_blocks import BlockScanner
from stringsh.protocol.stream import read_requests
from tests.conftest import STRINGSH
from tests.dialects.mcp.client import server_env
from tests.fuzz.inputs import FUZZ, batch, json_line, string_line

STRING_SEEDS = ["/write fz/w{n}.txt tok{n}-{n}z", "[r{n}] /write fz/w{n}.txt tok{n}-{n}z", "/ls fz",
                "/open fz/w{n}.txt", "/revert 100000000000000000000", "/changes 1", "/help write", "/grep tok fz",
                "/write fz/w{n}.txt <<EOF", "EOF", "/replace fz/w{n}.txt", "/undo", "OPERATOR_CMD"]
TOOLS_SEEDS: list[dict[str, Any]] = [
    {"id": "{n}", "tool": "write", "args": {"file_path": "fz/w{n}.txt", "content": "tok{n}-{n}z"}},
    {"id": "{n}", "tool": "read", "args": {"file_path": "fz/w{n}.txt"}},
    {"id": "{n}", "tool": "glob", "args": {"pattern": "fz/*"}},
    {"id": "{n}", "tool": "revert", "args": {"id": 1}},
    {"id": "{n}", "tool": "changes", "args": {"id": 1}},
    {"id": "{n}", "tool": "grep", "args": {"pattern": "tok"}},
    {"id": "{n}", "tool": "edit", "args": {"file_path": "fz/w{n}.txt", "old_string": "tok", "new_string": "t"}},
]
DAEMON_SEEDS: list[dict[str, Any]] = [
    {"id": "{n}", "cmd": "/write fz/w{n}.txt tok{n}-{n}z"},
    {"id": "{n}", "cmd": "/ls fz", "topic": "main"},
    {"id": "{n}", "cmd": "/open fz/w{n}.txt", "topic": "t{n}"},
    {"id": "{n}", "cmd": "/changes 1"},
    {"id": "{n}", "cmd": "/revert 100000000000000000000"},
]


def mcp_call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": "{n}", "method": "tools/call", "params": {"name": name, "arguments": arguments}}


MCP_SEEDS: list[dict[str, Any]] = [
    mcp_call("write_file", {"path": "fz/w{n}.txt", "content": "tok{n}-{n}z"}),
    mcp_call("read_text_file", {"path": "fz/w{n}.txt"}),
    mcp_call("list_directory", {"path": "fz"}),
    mcp_call("string", {"request": "/write fz/w{n}.txt tok{n}-{n}z"}),
    mcp_call("revert", {"id": 1}),
    mcp_call("changes", {"id": 1}),
    {"jsonrpc": "2.0", "id": "{n}", "method": "ping", "params": {"x": "y"}},
    {"jsonrpc": "2.0", "id": "{n}", "method": "tools/list"},
    {"jsonrpc": "2.0", "id": "{n}", "method": "no/such", "params": {}},
]
MCP_OPENING = [json.dumps({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "fuzz", "version": "1"}}}).encode(),
    b'{"jsonrpc":"2.0","method":"notifications/initialized"}']


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


OPERATOR_SEEDS = ["OPERATOR_CMD", "version: 1", "id: b{n}", "action: fs.write", "path: fz/w{n}.txt",
                  "content: tok{n}-{n}z", f"content_b64: {b64('tok-z')}", "action: fs.read", "action: fs.list",
                  "path: fz", "END_OPERATOR_CMD", "action: fs.delete", "path_to: fz/x.txt"]


def serve(args: list[str], lines: list[bytes], root: Path) -> subprocess.CompletedProcess[bytes]:
    """The front end on `lines`, its stdin closed at once; it must end by itself."""
    data = b"".join(line + b"\n" for line in lines)
    done = subprocess.run([*STRINGSH, "--root", str(root), *args], input=data, capture_output=True, timeout=240,
                          cwd=root, env={**server_env(), "TERM": "dumb"})
    assert b"Traceback" not in done.stderr, done.stderr.decode(errors="replace")[-3000:]
    assert b"INTERNAL_ERROR" not in done.stdout
    assert done.returncode in (0, 1), (done.returncode, done.stderr[-2000:])
    return done


def workspace(tmp_path_factory: Any) -> Path:
    root = tmp_path_factory.mktemp("fuzz") / "ws"
    (root / "fz").mkdir(parents=True)
    return root


def written(root: Path) -> set[str]:
    """The files the batch made (only its requests write into fz/)."""
    return {path.relative_to(root).as_posix() for path in (root / "fz").rglob("*") if path.is_file()}


def string_items(lines: list[bytes], *, envelopes: bool = False) -> int:
    return sum(1 for _ in read_requests(io.BytesIO(b"".join(line + b"\n" for line in lines)).readline,
                                        envelopes=envelopes))


def assert_written_by_ok(root: Path, replies: list[tuple[str, bool]]) -> None:
    """Every file in fz/ is named by a reply (its `re:` line, or its request) that was ok."""
    for name in written(root):
        assert any(name in said and ok for said, ok in replies), (name, replies)


@FUZZ
@given(batch(lambda n: string_line(n, STRING_SEEDS)))
def test_run_stdin(tmp_path_factory: Any, lines: list[bytes]) -> None:
    root = workspace(tmp_path_factory)
    done = serve(["run", "--keep-going", "-"], lines, root)
    expected = string_items(lines)
    summary = re.search(r"^stringsh: (\d+) requests?, ", done.stderr.decode(errors="replace"), re.MULTILINE)
    assert summary is not None and int(summary.group(1)) == expected, (expected, done.stderr[-2000:])


@FUZZ
@given(batch(lambda n: string_line(n, STRING_SEEDS)))
def test_plain_loop(tmp_path_factory: Any, lines: list[bytes]) -> None:
    root = workspace(tmp_path_factory)
    done = serve(["--no-echo"], lines, root)
    replies = done.stdout.decode("utf-8", "replace").split("\n</𝒞>\n")[:-1]
    assert len(replies) == string_items(lines)
    assert_written_by_ok(root, [(reply.split("\n", 1)[0], "\nERROR(" not in reply) for reply in replies])


@FUZZ
@given(batch(lambda n: string_line(n, STRING_SEEDS)))
def test_framed_daemon(tmp_path_factory: Any, lines: list[bytes]) -> None:
    root = workspace(tmp_path_factory)
    done = serve(["daemon"], lines, root)
    frames = re.split(r"^<𝒞=string:[^>\n]*>\n", done.stdout.decode("utf-8", "replace"), flags=re.MULTILINE)[1:]
    assert len(frames) == string_items(lines, envelopes=True)
    assert_written_by_ok(root, [(frame.split("\n", 1)[0], "\nERROR(" not in frame) for frame in frames])


def json_requests(lines: list[bytes]) -> list[Any]:
    """What each line is as JSON (None where it is not: bytes that are not UTF-8 are no JSON text)."""
    out = []
    for line in lines:
        try:
            out.append(json.loads(line.decode("utf-8")))
        except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
            out.append(None)
    return out


def named_by(request: Any) -> str:
    """The text of a decoded request that names its target: a JSON dump of it, paths included."""
    return json.dumps(request, ensure_ascii=False) if request is not None else ""


def json_replies(stdout: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.decode("utf-8").split("\n")[:-1]]  # not splitlines: U+2028 is text


def by_id(requests: list[Any], replies: list[dict[str, Any]], ok: Any) -> list[tuple[str, bool]]:
    """(request text, ok) per reply whose id one request alone had."""
    ids: dict[str, list[Any]] = {}
    for request in requests:
        if isinstance(request, dict) and isinstance(request.get("id"), str):
            ids.setdefault(request["id"], []).append(request)
    return [(named_by(ids[reply["id"]][0]), ok(reply)) for reply in replies
            if isinstance(reply.get("id"), str) and len(ids.get(reply["id"], [])) == 1]


@FUZZ
@given(batch(lambda n: json_line(n, DAEMON_SEEDS)))
def test_daemon_json(tmp_path_factory: Any, lines: list[bytes]) -> None:
    root = workspace(tmp_path_factory)
    done = serve(["daemon", "--json"], lines, root)
    replies = json_replies(done.stdout)
    assert len(replies) == sum(1 for line in lines if line.strip())
    assert_written_by_ok(root, by_id(json_requests(lines), replies, lambda reply: reply["ok"]))


@FUZZ
@given(batch(lambda n: json_line(n, TOOLS_SEEDS)))
def test_json_tools(tmp_path_factory: Any, lines: list[bytes]) -> None:
    root = workspace(tmp_path_factory)
    done = serve(["tools"], lines, root)
    replies = json_replies(done.stdout)
    assert len(replies) == sum(1 for line in lines if line.strip())
    assert_written_by_ok(root, by_id(json_requests(lines), replies, lambda reply: reply["ok"]))


def mcp_answered(message: Any) -> bool:
    """Whether JSON-RPC owes `message` a reply: anything but a notification or a client's reply."""
    if not isinstance(message, dict):
        return True
    if "method" in message:
        return "id" in message
    return "result" not in message and "error" not in message


@FUZZ
@given(batch(lambda n: json_line(n, MCP_SEEDS)))
def test_mcp_stdio(tmp_path_factory: Any, lines: list[bytes]) -> None:
    root = workspace(tmp_path_factory)
    done = serve(["mcp"], [*MCP_OPENING, *lines], root)
    # the first answers initialize; a message the server sends of its own (a notification) is no reply
    replies = [reply for reply in json_replies(done.stdout)[1:] if "method" not in reply]
    requests = json_requests(lines)
    owed = [line for line, request in zip(lines, requests, strict=True) if line.strip() and mcp_answered(request)]
    assert len(replies) == len(owed), (replies, owed, done.stderr[-3000:])

    def ok(reply: dict[str, Any]) -> bool:
        return "result" in reply and not reply["result"].get("isError", False)

    assert_written_by_ok(root, by_id(requests, replies, ok))


@FUZZ
@given(batch(lambda n: string_line(n, OPERATOR_SEEDS)))
def test_operator(tmp_path_factory: Any, lines: list[bytes]) -> None:
    root = workspace(tmp_path_factory)
    done = serve(["operator"], lines, root)
    scanner = BlockScanner()
    expected = sum(len(scanner.feed(line.decode("utf-8", "surrogateescape"))) for line in lines)
    expected += len(scanner.finish())
    assert done.stdout.count(b"END_OPERATOR_RESULT\n") == expected


@FUZZ
@given(st.one_of(batch(lambda n: json_line(n, MCP_SEEDS)), st.lists(st.binary(min_size=1, max_size=200), max_size=8)))
def test_mcp_http(http_root: Any, bodies: list[bytes]) -> None:
    """Each POST, whatever its body, gets one answer and the server keeps serving."""
    import httpx

    server, session = http_root
    for body in bodies:
        answer = httpx.post(server.url, content=body, headers=session, timeout=60)
        assert answer.status_code in (200, 202, 400), (answer.status_code, answer.text)
    assert server.process.poll() is None
    assert not any("Traceback" in line for line in server.stderr)
