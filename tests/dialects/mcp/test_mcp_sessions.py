"""Each MCP connection is its own client: two HTTP sessions of one `stringsh mcp --http` (the SDK's client) never
share an undo history, a shell (cwd, exports) or an open document; `/changes` and the audit name each session's
client; a session's shell is stopped when the client disconnects, or when the session has been idle too long."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.conftest import descendants
from tests.dialects.mcp.changeline import changed
from tests.dialects.mcp.client import (
    HttpServer,
    free_port,
    http_server,
    http_session,
    listening,
    server_env,
    stdio_session,
    wait_until,
)

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "vanishing", "version": "1"}}}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
#: `stringsh` with the idle timeout of HTTP sessions cut to the seconds given first (the constant, overridden).
IDLE_LAUNCH = ("import sys; import stringsh.dialects.mcp.sessions as s; s.IDLE_SECONDS = float(sys.argv.pop(1)); "
               "from stringsh.cli import main; sys.exit(main())")


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("mcpsessions").resolve() / "ws"
    folder.mkdir()
    (folder / "notes.md").write_text("# Notes\n\n## Intro\n\nhello\n")
    return folder


@pytest.fixture(scope="module")
def server(root: Path, env: dict[str, str]) -> Iterator[HttpServer]:
    with http_server(root, env=env) as running:
        yield running


def wait_gone(pid: int, processes: set[int]) -> set[int]:
    """`processes` still running below `pid` once they are gone, or after 30 s (then the test fails on them)."""
    deadline = time.monotonic() + 30
    while (left := processes & descendants(pid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left


def test_one_sessions_undo_never_takes_back_anothers_change(server: HttpServer, root: Path, tmp_path: Path) -> None:
    canary = tmp_path / "canary.txt"
    canary.write_text("outside\n")
    with http_session(server.url, token=server.token, name="alice") as alice, \
            http_session(server.url, token=server.token, name="bob") as bob:
        assert alice.text("write_file", {"path": "alice.txt", "content": "mine\n"}).startswith(
            "Successfully wrote to alice.txt (change ")
        assert bob.error("undo") == (
            "re: /undo\nERROR(NOT_FOUND): Nothing to undo.\n"
            "changes {} lists the changes there are."
        )
        assert (root / "alice.txt").read_text() == "mine\n"
        assert changed(alice.text("undo")) == "re: /undo\nUndo: deleted alice.txt (was newly created)"
        assert not (root / "alice.txt").exists()
    assert canary.read_text() == "outside\n"


@pytest.mark.needs("bwrap")
def test_one_sessions_shell_state_is_its_own(server: HttpServer, root: Path) -> None:
    with http_session(server.url, token=server.token, name="alice") as alice, \
            http_session(server.url, token=server.token, name="bob") as bob:
        assert alice.text("bash", {"command": "cd /tmp; export X=alice"}) == (
            "re: !cd /tmp; export X=alice\nexit: 0 | cwd: /tmp\n---\n(no output)")
        assert bob.text("bash", {"command": 'echo "X=$X"; pwd'}) == (
            f're: !echo "X=$X"; pwd\nexit: 0 | cwd: {root}\n---\nX=\n{root}')
        assert alice.text("bash", {"command": 'echo "X=$X"'}) == 're: !echo "X=$X"\nexit: 0 | cwd: /tmp\n---\nX=alice'


def test_one_sessions_open_document_is_its_own(server: HttpServer) -> None:
    with http_session(server.url, token=server.token, name="alice") as alice, \
            http_session(server.url, token=server.token, name="bob") as bob:
        assert "hello" in alice.text("open", {"target": "notes.md"})
        assert "hello" in alice.text("open", {"target": "#intro"})
        assert bob.error("open", {"target": "#intro"}).startswith("re: /open -- #intro\nERROR(")


def test_changes_and_audit_name_each_sessions_client(server: HttpServer, root: Path, env: dict[str, str]) -> None:
    with http_session(server.url, token=server.token, name="alice") as alice, \
            http_session(server.url, token=server.token, name="bob") as bob:
        alice.text("write_file", {"path": "by-alice.txt", "content": "a\n"})
        bob.text("string", {"request": "/write by-bob.txt\nb\n"})
        listing = bob.text("changes", {"n": 2})
    rows = listing.split("\n---\n", 1)[1].splitlines()
    assert re.fullmatch(r"\d+  \S+ \S+  mcp-bob-[0-9a-f]{6}    /write by-bob\.txt\s+by-bob\.txt \+1 -0", rows[0]), rows
    assert re.fullmatch(r"\d+  \S+ \S+  mcp-alice-[0-9a-f]{6}  write_file by-alice\.txt  by-alice\.txt \+1 -0",
                        rows[1]), rows
    done = subprocess.run([sys.executable, "-m", "stringsh", "--root", str(root), "audit", "tail", "--json", "-n",
                           "40"], env=server_env(env), capture_output=True, text=True, timeout=60, check=True)
    records = [json.loads(line) for line in done.stdout.splitlines()]
    writes = {r["agent"]: r for r in records if r.get("op") in ("mcp.write_file", "mcp.string") and r.get("change")}
    assert writes["alice"]["topic"].startswith("mcp-alice-") and writes["bob"]["topic"].startswith("mcp-bob-")
    assert writes["alice"]["client"] != writes["bob"]["client"]
    assert {writes["alice"]["client"][:4], writes["bob"]["client"][:4]} == {"mcp-"}


@pytest.mark.needs("bwrap")
def test_a_disconnected_sessions_shell_is_stopped(server: HttpServer) -> None:
    pid = server.process.pid
    with http_session(server.url, token=server.token, name="bob") as bob:
        with http_session(server.url, token=server.token, name="alice") as alice:
            before = descendants(pid)
            alice.text("bash", {"command": "cd /tmp"})
            alices = descendants(pid) - before
            bob.text("bash", {"command": "true"})
            bobs = descendants(pid) - before - alices
            assert alices and bobs
        assert wait_gone(pid, alices) == set()
        assert bobs <= descendants(pid)  # the other session's shell goes on
        assert bob.text("bash", {"command": "echo still"}).endswith("\n---\nstill")
    assert wait_gone(pid, bobs) == set()


def test_stdio_connection_is_a_client_of_its_own(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    with stdio_session(root, name="stdio agent") as client:
        client.text("write_file", {"path": "s.txt", "content": "s\n"})
        assert re.search(r"  mcp-stdio_agent-[0-9a-f]{6}  write_file s\.txt ", client.text("changes"))
        assert changed(client.text("undo")) == "re: /undo\nUndo: deleted s.txt (was newly created)"
    assert not (root / "s.txt").exists()


@contextmanager
def idle_server(root: Path, env: dict[str, str], seconds: float) -> Iterator[tuple[str, str, int]]:
    """`stringsh mcp --http` whose sessions end after `seconds` idle: (url, token, pid)."""
    port = free_port()
    process = subprocess.Popen([sys.executable, "-c", IDLE_LAUNCH, str(seconds), "--root", str(root), "mcp", "--http",
                                f"127.0.0.1:{port}"], env=server_env(env), cwd=str(root),
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stderr is not None
        token = None
        for line in process.stderr:
            match = re.search(r"token: (\S+)", line)
            if match:
                token = match.group(1)
                break
        assert token is not None and token != "from"
        url = f"http://127.0.0.1:{port}/mcp"
        wait_until(listening("127.0.0.1", port), "server did not listen", process)
        yield url, token, process.pid
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.mark.needs("bwrap")
def test_an_idle_session_is_ended_and_its_shell_stopped(tmp_path: Path, env: dict[str, str]) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    with idle_server(root, env, 1.0) as (url, token, pid), httpx.Client(timeout=30) as http:
        headers = {**ACCEPT, "Authorization": f"Bearer {token}"}
        opened = http.post(url, json=INIT, headers=headers)
        assert opened.status_code == 200
        headers["Mcp-Session-Id"] = opened.headers["mcp-session-id"]
        headers["MCP-Protocol-Version"] = "2025-06-18"
        assert http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"},
                         headers=headers).status_code == 202
        before = descendants(pid)
        called = http.post(url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                      "params": {"name": "bash", "arguments": {"command": "cd /tmp"}}},
                           headers=headers)
        assert "exit: 0 | cwd: /tmp" in called.text
        shell = descendants(pid) - before
        assert shell
        assert wait_gone(pid, shell) == set()  # no DELETE: the idle timeout ended it
        assert http.post(url, json={"jsonrpc": "2.0", "id": 3, "method": "tools/list"},
                         headers=headers).status_code == 404
