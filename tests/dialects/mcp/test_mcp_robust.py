"""Bad input and bad peers: malformed JSON-RPC on stdio, a client that goes away mid-call (stdio and HTTP), and two
HTTP clients editing one file at once. The server keeps serving and no file is left half written."""

from __future__ import annotations

import json
import select
import subprocess
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.dialects.mcp.client import STRINGSH, HttpServer, http_server, http_session, server_env, stdio_session

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def call(ident: int, name: str, arguments: dict[str, object]) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": {"name": name, "arguments": arguments}}


def spawn(root: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen([*STRINGSH, "--root", str(root), "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=server_env(env))


def replies(process: subprocess.Popen[str], count: int) -> list[dict[str, object]]:
    assert process.stdout is not None
    out = []
    while len(out) < count and select.select([process.stdout], [], [], 30)[0]:
        line = process.stdout.readline()
        if not line:
            break
        out.append(json.loads(line))
    return out


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "keep.txt").write_text("keep\n")
    return folder


def invalid(ident: object, message: str, code: int = -32600) -> dict[str, object]:
    return {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": f"{message}; nothing was done"}}


def test_malformed_json_rpc_on_stdio_is_refused_and_the_server_goes_on(root: Path, env: dict[str, str]) -> None:
    """Each line that is no message the server can take gets JSON-RPC's own error (id null when it had no usable
    one), never silence: a client waiting for its id would wait forever."""
    process = spawn(root, env)
    assert process.stdin is not None and process.stderr is not None
    lines = [json.dumps(INIT), json.dumps(INITIALIZED), "this is not json", '{"jsonrpc":"2.0","id":2}',
             '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":"x"}', "[1,2]", "{" * 10000,
             json.dumps({"jsonrpc": "2.0", "id": 4, "method": "no/such", "params": {}}),
             json.dumps(call(5, "read_text_file", {"path": "keep.txt"}))]
    process.stdin.write("\n".join(lines) + "\n")
    process.stdin.flush()
    # replies to different requests come in any order (JSON-RPC): the read is answered while the SDK loads
    got = replies(process, 8)
    refused = [reply for reply in got if reply["id"] in (None, 2, 3)]
    assert refused == [
        invalid(None, "Parse error: Expecting value: line 1 column 1 (char 0)", -32700),
        invalid(2, 'Invalid Request: a request has a "method"'),
        invalid(3, 'Invalid Request: "params" must be an object'),
        invalid(None, "Invalid Request: a message is one JSON object"),
        invalid(None, "Parse error: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
                -32700),
    ]
    answered = {reply["id"]: reply for reply in got if reply["id"] not in (None, 2, 3)}
    assert set(answered) == {1, 4, 5}
    assert answered[4] == {"jsonrpc": "2.0", "id": 4, "error": {"code": -32601, "message": "Method not found",
                                                                "data": "no/such"}}
    assert answered[5] == {"jsonrpc": "2.0", "id": 5, "result": {"content": [{"type": "text", "text": "keep\n"}],
                                                                 "isError": False,
                                                                 "structuredContent": {"content": "keep\n"}}}
    process.stdin.close()
    assert process.wait(timeout=30) == 0
    assert "Traceback" not in process.stderr.read()


def test_a_stdio_client_gone_mid_call_leaves_whole_files(root: Path, env: dict[str, str]) -> None:
    process = spawn(root, env)
    assert process.stdin is not None and process.stderr is not None
    big = "line\n" * 400_000
    process.stdin.write("\n".join([json.dumps(INIT), json.dumps(INITIALIZED),
                                   json.dumps(call(2, "write_file", {"path": "big.txt", "content": big}))]) + "\n")
    process.stdin.close()  # gone before any answer
    assert process.wait(timeout=60) == 0
    assert "Traceback" not in process.stderr.read()
    assert not (root / "big.txt").exists() or (root / "big.txt").read_text() == big
    with stdio_session(root, env=env) as client:  # the workspace serves the next client as before
        assert client.text("read_text_file", {"path": "keep.txt"}) == "keep\n"
        assert client.text("write_file", {"path": "after.txt", "content": "a\n"}).startswith("Successfully wrote")


@pytest.fixture
def server(root: Path, env: dict[str, str]) -> Iterator[HttpServer]:
    with http_server(root, env=env) as running:
        yield running


def test_an_http_client_gone_mid_call_leaves_the_server_serving(server: HttpServer, root: Path) -> None:
    for index in range(3000):
        folder = root / "tree" / f"d{index % 50}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{index}.txt").write_text("x\n")
    headers = {"Accept": "application/json, text/event-stream", "Authorization": f"Bearer {server.token}"}
    answer = httpx.post(server.url, json=INIT, headers=headers, timeout=30)
    session = {**headers, "mcp-session-id": answer.headers["mcp-session-id"]}
    httpx.post(server.url, json=INITIALIZED, headers=session, timeout=30)
    with pytest.raises(httpx.TimeoutException):
        httpx.post(server.url, json=call(2, "directory_tree", {"path": "tree"}), headers=session, timeout=0.01)
    with http_session(server.url, token=server.token) as client:
        assert client.text("read_text_file", {"path": "keep.txt"}) == "keep\n"
    assert server.process.poll() is None
    assert "Traceback" not in "".join(server.stderr)


def test_two_http_clients_editing_one_file(server: HttpServer, root: Path) -> None:
    """Both land, or one is refused loudly (CONFLICT); never a lost update."""
    lines = [f"line {index}\n" for index in range(20)]
    (root / "shared.txt").write_text("".join(lines))
    with http_session(server.url, token=server.token, name="one") as one, \
            http_session(server.url, token=server.token, name="two") as two:

        def edit(client_index: int) -> list[tuple[int, str]]:
            client = (one, two)[client_index]
            done = []
            for index in range(client_index, 20, 2):
                result = client.call("edit_file", {"path": "shared.txt", "edits": [
                    {"oldText": f"line {index}\n", "newText": f"LINE {index}\n"}]})
                done.append((index, "error" if result.is_error else "ok"))
                if result.is_error:
                    text = result.content[0].text  # type: ignore[union-attr]
                    assert text.startswith("ERROR(CONFLICT): "), (text, "".join(server.stderr))
            return done

        with ThreadPoolExecutor(2) as pool:
            outcomes = [item for items in pool.map(edit, (0, 1)) for item in items]
    final = (root / "shared.txt").read_text().splitlines()
    for index, outcome in outcomes:
        assert final[index] == (f"LINE {index}" if outcome == "ok" else f"line {index}")
    assert any(outcome == "ok" for _, outcome in outcomes)
