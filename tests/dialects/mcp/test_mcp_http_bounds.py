"""`stringsh mcp --http` bounds what one caller can hold, against a real loopback server:
sessions past `--max-sessions` refused with a coded JSON-RPC error until one ends; a connection that sends half
its headers, or nothing, closed after `--header-timeout`; an idle keep-alive connection after `--idle-timeout`;
two `Authorization` headers refused."""

from __future__ import annotations

import json
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.dialects.mcp.client import STRINGSH, HttpServer, free_port, http_server, server_env

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "curl", "version": "1"}}}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
#: How long a socket read may wait before the test gives up: a bound on a server that never closes, not a speed check.
LIVENESS = 60


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("mcpbounds") / "ws"
    folder.mkdir()
    return folder


@pytest.fixture(scope="module")
def server(root: Path, env: dict[str, str]) -> Iterator[HttpServer]:
    with http_server(root, "--max-sessions", "2", "--header-timeout", "1", "--idle-timeout", "1",
                     env=env) as running:
        yield running


def auth(server: HttpServer) -> dict[str, str]:
    return {**ACCEPT, "Authorization": f"Bearer {server.token}"}


def open_session(server: HttpServer) -> httpx.Response:
    return httpx.post(server.url, json=INIT, headers=auth(server), timeout=LIVENESS)


def connect(server: HttpServer) -> socket.socket:
    host, port = server.url.removeprefix("http://").split("/")[0].rsplit(":", 1)
    sock = socket.create_connection((host, int(port)), timeout=LIVENESS)
    return sock


def read_until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (a timeout here fails the test)."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def test_sessions_past_the_limit_are_refused_until_one_ends(server: HttpServer) -> None:
    first, second = open_session(server), open_session(server)
    assert first.status_code == second.status_code == 200
    third = open_session(server)
    assert third.status_code == 503
    assert third.headers["retry-after"] == "5"
    assert third.json() == {"jsonrpc": "2.0", "id": None, "error": {
        "code": -32000,
        "message": "ERROR(BUSY): 2 MCP sessions are open, the most this server takes\n"
                   "End one (HTTP DELETE with its Mcp-Session-Id) or wait for an idle one to end; the server's "
                   "--max-sessions sets the limit.",
        "data": {"code": "BUSY", "limit": 2}}}
    health = httpx.get(server.url.replace("/mcp", "/healthz"), timeout=LIVENESS).json()
    assert health == {"status": "ok", "sessions": 2}
    ended = httpx.delete(server.url, headers={**auth(server), "Mcp-Session-Id": first.headers["mcp-session-id"]},
                         timeout=LIVENESS)
    assert ended.status_code == 200
    assert open_session(server).status_code == 200  # room again
    # a request of an open session is never refused by the limit
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    answer = httpx.post(server.url, json=ping, timeout=LIVENESS,
                        headers={**auth(server), "Mcp-Session-Id": second.headers["mcp-session-id"],
                                 "Mcp-Protocol-Version": "2025-06-18"})
    assert answer.status_code == 200, answer.text


@pytest.mark.parametrize("sent", [b"", b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bea"],
                         ids=["nothing", "half the headers"])
def test_a_connection_without_a_whole_head_is_closed(server: HttpServer, sent: bytes) -> None:
    with connect(server) as sock:
        sock.sendall(sent)
        assert read_until_closed(sock) == b""  # closed by the server, nothing answered


def test_an_idle_keep_alive_connection_is_closed_after_its_answer(server: HttpServer) -> None:
    with connect(server) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        answer = read_until_closed(sock)
    assert answer.startswith(b"HTTP/1.1 200 OK\r\n")
    assert b'\r\n\r\n{"status": "ok", "sessions": ' in answer  # answered, then closed once idle


def test_a_head_that_trickles_in_is_closed_too(server: HttpServer) -> None:
    """Each byte re-arms nothing: the deadline runs from the head's first byte."""
    with connect(server) as sock:
        sock.sendall(b"POST /mcp HTTP/1.1\r\n")
        sock.settimeout(0.2)
        closed = False
        for _ in range(LIVENESS * 5):  # one more header line every 0.2 s until the server hangs up
            try:
                if sock.recv(65536) == b"":
                    closed = True
                    break
            except ConnectionResetError:  # hung up with our last line unread: the kernel resets rather than ends
                closed = True
                break
            except TimeoutError:
                try:
                    sock.sendall(b"X-Slow: 1\r\n")
                except OSError:
                    closed = True
                    break
        assert closed


@pytest.mark.parametrize("order", ["valid last", "valid first"])
def test_two_authorization_headers_are_refused(server: HttpServer, order: str) -> None:
    valid, other = ("Authorization", f"Bearer {server.token}"), ("Authorization", "Bearer " + "x" * 43)
    pair = [other, valid] if order == "valid last" else [valid, other]
    answer = httpx.post(server.url, json=INIT, headers=[*ACCEPT.items(), *pair], timeout=LIVENESS)
    assert answer.status_code == 400
    assert answer.json() == {"error": "ERROR(INVALID_PAYLOAD): more than one Authorization header",
                             "hint": "Send the token once: Authorization: Bearer TOKEN"}
    health = httpx.get(server.url.replace("/mcp", "/healthz"), headers=pair, timeout=LIVENESS)
    assert set(json.loads(health.text)) == {"status", "sessions"}  # the token's extras need one header


@pytest.mark.parametrize(("flag", "value"), [("--max-sessions", "0"), ("--header-timeout", "-1"),
                                             ("--idle-timeout", "nan")])
def test_a_bound_must_be_positive(root: Path, flag: str, value: str) -> None:
    done = subprocess.run([*STRINGSH, "--root", str(root), "mcp", "--http", f"127.0.0.1:{free_port()}", flag, value],
                          env=server_env(), capture_output=True, text=True, timeout=LIVENESS)
    assert done.returncode == 2
    example = "64" if flag == "--max-sessions" else "10"
    assert done.stderr.splitlines()[-2:] == [f"stringsh: ERROR(INVALID_PAYLOAD): {flag} wants a positive number, "
                                             f"got {float(value):g}", f"Give one: {flag} {example}"]
