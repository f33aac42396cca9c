"""`stringsh mcp --http` as a process manager runs it: the health endpoint, a graceful stop on SIGTERM or SIGINT
(calls in flight finish, shells closed, journal and audit consistent, status 0) and `--log-json` lines."""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import httpx
import pytest

from stringsh.userdirs import config_dir
from tests.conftest import descendants
from tests.dialects.mcp.client import (
    STRINGSH,
    HttpServer,
    free_port,
    http_server,
    http_session,
    listening,
    server_env,
    wait_until,
)

TOKEN = "running-token-" + "r" * 30
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "curl", "version": "1"}}}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "notes.txt").write_text("hello\n")
    return folder


@pytest.fixture
def canary(tmp_path: Path) -> Path:
    """A file outside the workspace that nothing may read or change."""
    path = tmp_path / "canary.txt"
    path.write_text("canary-secret-words\n")
    return path


def health_url(server: HttpServer) -> str:
    return server.url.removesuffix("/mcp") + "/healthz"


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def audit_verify(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*STRINGSH, "--root", str(root), "audit", "verify"], env=server_env(), cwd=str(root),
                          capture_output=True, text=True, timeout=60)


def stop(server: HttpServer, sig: signal.Signals = signal.SIGTERM) -> int:
    server.process.send_signal(sig)
    return server.process.wait(timeout=60)


# -- the health endpoint -------------------------------------------------------------------------------------------


def test_health_needs_no_token_and_names_nothing_without_it(root: Path) -> None:
    with http_server(root) as server:
        answer = httpx.get(health_url(server), timeout=10)
        assert answer.status_code == 200
        assert answer.headers["content-type"] == "application/json"
        assert answer.json() == {"status": "ok", "sessions": 0}
        assert str(root) not in answer.text
        with http_session(server.url, token=server.token):
            assert httpx.get(health_url(server), timeout=10).json() == {"status": "ok", "sessions": 1}
        told = httpx.get(health_url(server), headers={"Authorization": f"Bearer {server.token}"}, timeout=10).json()
        assert told["workspace"] == str(root.resolve()) and told["status"] == "ok" and told["version"]
        wrong = httpx.get(health_url(server), headers={"Authorization": "Bearer wrong"}, timeout=10).json()
        assert "workspace" not in wrong


def test_health_does_not_open_anything_else_without_the_token(root: Path) -> None:
    with http_server(root) as server:
        base = server.url.removesuffix("/mcp")
        for method, path in [("POST", "/healthz"), ("GET", "/healthz/"), ("GET", "/healthz/x"), ("GET", "/mcp"),
                             ("POST", "/mcp"), ("DELETE", "/healthz"), ("GET", "/healthz/../mcp")]:
            answer = httpx.request(method, base + path, json=INIT, headers=ACCEPT, timeout=10)
            assert (method, path, answer.status_code) == (method, path, 401)
            assert answer.json()["error"] == "ERROR(AUTH_REQUIRED): a bearer token is required"


# -- graceful shutdown ---------------------------------------------------------------------------------------------


def test_sigterm_during_a_large_write_leaves_it_whole_and_closes_the_shell(root: Path, canary: Path) -> None:
    before = "before\n" * 10
    after = ("after-line " * 10 + "\n") * 25_000  # 2.8 MB: under the 4 MiB request and 200,000-line limits
    (root / "big.txt").write_text(before)
    with http_server(root) as server:
        client_cm = http_session(server.url, token=server.token)
        client = client_cm.__enter__()
        assert client.text("bash", {"command": "echo ready"}).endswith("\n---\nready")
        shells = descendants(server.process.pid)
        assert shells, "the topic's shell runs below the server"
        call = client.portal.start_task_soon(client.session.call_tool, "write_file",
                                             {"path": "big.txt", "content": after})
        time.sleep(0.2)  # some time for the request to reach the server; the checks hold wherever it lands
        assert stop(server) == 0
        try:
            replied = call.result(timeout=30)
        except Exception:  # the request reached the server as it stopped listening: no reply, either state
            replied = None
        if replied is not None:  # the reply came: the call finished before the process ended
            assert replied.content[0].text.startswith("Successfully wrote to big.txt (change ")  # type: ignore[union-attr]
            assert (root / "big.txt").read_text() == after
        with suppress(Exception):
            client_cm.__exit__(None, None, None)
    assert (root / "big.txt").read_text() in (before, after)
    assert [pid for pid in shells if alive(pid)] == []
    verified = audit_verify(root)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert verified.stdout.startswith("audit log ok: ")
    assert "stringsh: SIGTERM: finishing the calls in flight, then closing\n" in server.stderr
    assert canary.read_text() == "canary-secret-words\n"


def test_sigint_stops_the_same_way(root: Path) -> None:
    with http_server(root) as server:
        with http_session(server.url, token=server.token) as client:
            client.text("write_file", {"path": "a.txt", "content": "a\n"})
        assert stop(server, signal.SIGINT) == 0
    assert "stringsh: SIGINT: finishing the calls in flight, then closing\n" in server.stderr
    assert audit_verify(root).returncode == 0


def test_a_shell_command_outlasting_the_grace_is_interrupted(root: Path) -> None:
    """`sleep 300` in flight: after the grace period it gets Ctrl-C, the reply says so, the process exits 0."""
    with http_server(root) as server, http_session(server.url, token=server.token) as client:
        client.text("bash", {"command": "echo ready"})
        shells = descendants(server.process.pid)
        call = client.portal.start_task_soon(client.session.call_tool, "bash", {"command": "sleep 300"})
        wait_until(lambda: any("sleep" in _cmdline(pid) for pid in descendants(server.process.pid)),
                   "the command never started")
        assert stop(server) == 0
        result = call.result(timeout=30)
        assert result.is_error
        assert "exit: 130" in result.content[0].text  # type: ignore[union-attr]
    assert [pid for pid in shells if alive(pid)] == []
    assert audit_verify(root).returncode == 0


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


# -- --log-json ----------------------------------------------------------------------------------------------------


class JsonServer:
    def __init__(self, process: subprocess.Popen[str], url: str) -> None:
        self.process = process
        self.url = url
        self.lines: list[str] = []


@contextmanager
def json_server(root: Path) -> Iterator[JsonServer]:
    """`stringsh mcp --http 127.0.0.1:PORT --log-json` with the token in the config folder, once it listens."""
    port = free_port()
    process = subprocess.Popen([*STRINGSH, "--root", str(root), "mcp", "--http", f"127.0.0.1:{port}", "--log-json"],
                               env=server_env(), cwd=str(root), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True)
    assert process.stderr is not None
    server = JsonServer(process, f"http://127.0.0.1:{port}/mcp")
    reader: threading.Thread | None = None
    try:
        for line in process.stderr:
            server.lines.append(line)
            if json.loads(line)["event"] == "start":
                break
        else:
            raise AssertionError(f"server did not start: {''.join(server.lines)}")
        reader = threading.Thread(target=lambda: server.lines.extend(process.stderr or ()), daemon=True)
        reader.start()
        wait_until(listening("127.0.0.1", port), "".join(server.lines), process)
        yield server
    finally:
        if process.poll() is None:
            process.terminate()
        process.wait(timeout=60)
        if reader is not None:
            reader.join(timeout=10)


def test_log_json_lines_are_json_and_hold_no_token_or_content(root: Path) -> None:
    folder = config_dir()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "mcp-token").write_text(TOKEN + "\n")
    (root / "secret-notes.txt").write_text("read-me-marker-7Q\n")
    with json_server(root) as server:
        with http_session(server.url, token=TOKEN) as client:
            client.text("write_file", {"path": "out.txt", "content": "written-marker-9Z\n"})
            assert client.text("read_text_file", {"path": "secret-notes.txt"}) == "read-me-marker-7Q\n"
            assert client.error("read_text_file", {"path": "missing.txt"}).startswith("ERROR(")
        assert httpx.get(server.url, params={"token": TOKEN}, timeout=10).status_code == 401
        assert httpx.get(server.url.removesuffix("/mcp") + "/healthz", timeout=10).status_code == 200
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(timeout=60) == 0
    text = "".join(server.lines)
    assert TOKEN not in text
    assert "marker" not in text
    records = [json.loads(line) for line in server.lines]
    assert all(set(record) >= {"time", "level", "event"} for record in records)
    assert all(record["time"].endswith("Z") for record in records)
    events = [record["event"] for record in records]
    assert events[:2] == ["policy", "start"] and events[-1] == "stop"
    after_signal = events[events.index("shutdown") + 1:-1]  # the streams the stop ended, each logged as it ends
    assert set(after_signal) <= {"http"}
    start = records[1]
    assert start["url"] == server.url and start["workspace"] == str(root.resolve())
    assert start["token_file"] == str(folder / "mcp-token")
    requests = [record for record in records if record["event"] == "http"]
    assert {(r["method"], r["path"]) for r in requests} >= {("POST", "/mcp"), ("GET", "/healthz"), ("GET", "/mcp")}
    assert all(isinstance(r["status"], int) and isinstance(r["duration_ms"], float) for r in requests)
    assert any(r["status"] == 401 for r in requests)
    assert all(len(r["session"]) == 12 for r in requests if "session" in r)
    assert any("session" in r for r in requests)
    assert records[events.index("shutdown")]["signal"] == "SIGTERM" and records[-1]["status"] == 0


def test_log_json_without_a_token_file_refuses_to_start(root: Path) -> None:
    """A generated token would have to be printed, and a log collector keeps every line."""
    done = subprocess.run([*STRINGSH, "--root", str(root), "mcp", "--http", f"127.0.0.1:{free_port()}",
                           "--log-json"], env=server_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    last = json.loads(done.stderr.splitlines()[-1])
    assert (last["level"], last["event"], last["message"]) == (
        "error", "error", "ERROR(AUTH_REQUIRED): --log-json needs the token in a file: it is never logged")
    assert last["hint"] == f"Put a token of 16 or more characters in {config_dir() / 'mcp-token'}"
    assert all(json.loads(line) for line in done.stderr.splitlines())


def test_log_json_needs_http(root: Path) -> None:
    done = subprocess.run([*STRINGSH, "--root", str(root), "mcp", "--log-json"], env=server_env(),
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-2:] == [
        "stringsh: ERROR(INVALID_PAYLOAD): --log-json only applies to --http",
        "Serve HTTP: stringsh mcp --http 127.0.0.1:PORT --log-json (on stdio, stderr is the client's)",
    ]
