"""`stringsh mcp --http` over real HTTP: the SDK's streamable HTTP client with the bearer token; plain requests
without it, with a wrong one or from a rebinding Host refused; loopback only unless --host; the config token."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from stringsh.userdirs import config_dir
from tests.conftest import default_start
from tests.dialects.mcp.client import (
    STRINGSH,
    HttpServer,
    free_port,
    http_server,
    http_session,
    roots_callback,
    server_env,
)

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "curl", "version": "1"}}}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("mcphttp") / "ws"
    folder.mkdir()
    (folder / "notes.txt").write_text("hello\n")
    return folder


@pytest.fixture(scope="module")
def server(root: Path, env: dict[str, str]) -> Iterator[HttpServer]:
    with http_server(root, env=env) as running:
        yield running


def test_the_sdk_client_with_the_token_reads_and_writes(server: HttpServer, root: Path) -> None:
    assert server.token is not None and len(server.token) >= 32
    with http_session(server.url, token=server.token) as client:
        assert client.text("read_text_file", {"path": "notes.txt"}) == "hello\n"
        assert client.text("write_file", {"path": "new.txt", "content": "x\n"}).startswith(
            "Successfully wrote to new.txt (change ")
        assert client.error("read_text_file", {"path": "/etc/passwd"}).startswith("ERROR(FILE_NOT_ALLOWED): ")
    assert (root / "new.txt").read_text() == "x\n"


def test_client_roots_over_http(server: HttpServer, root: Path) -> None:
    (root / "sub").mkdir(exist_ok=True)
    (root / "sub" / "in.txt").write_text("in\n")
    with http_session(server.url, token=server.token, roots=roots_callback([root / "sub"])) as client:
        assert client.text("list_allowed_directories") == f"Allowed directories:\n{(root / 'sub').resolve()}"
        assert client.text("read_text_file", {"path": "in.txt"}) == "in\n"  # relative to the first root
        assert client.error("read_text_file", {"path": "../notes.txt"}).startswith(
            "ERROR(FILE_NOT_ALLOWED): ../notes.txt is outside the client's roots\n")
    with http_session(server.url, token=server.token) as other:  # another session keeps the policy's roots
        assert other.text("read_text_file", {"path": "notes.txt"}) == "hello\n"


def test_a_request_without_the_token_is_refused(server: HttpServer) -> None:
    answer = httpx.post(server.url, json=INIT, headers=ACCEPT, timeout=10)
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"] == (
        'Bearer realm="stringsh", error_description="a bearer token is required: stringsh prints a token at start, '
        'or reads mcp-token in its config folder; send it as Authorization: Bearer TOKEN (no OAuth)"')
    assert answer.json() == {"error": "ERROR(AUTH_REQUIRED): a bearer token is required",
                             "hint": "Send the token stringsh printed at start (or the one in its config folder): "
                                     "Authorization: Bearer TOKEN"}


def test_a_wrong_token_is_refused(server: HttpServer) -> None:
    headers = {**ACCEPT, "Authorization": "Bearer " + "x" * 43}
    answer = httpx.post(server.url, json=INIT, headers=headers, timeout=10)
    assert answer.status_code == 401
    assert answer.headers["www-authenticate"] == (
        'Bearer realm="stringsh", error="invalid_token", error_description="the bearer token is not the one '
        'stringsh serves with: stringsh prints a token at start, or reads mcp-token in its config folder; send it '
        'as Authorization: Bearer TOKEN (no OAuth)"')
    headers["Authorization"] = f"bearer {server.token}x"
    assert httpx.post(server.url, json=INIT, headers=headers, timeout=10).status_code == 401


def test_the_token_passes_a_plain_request(server: HttpServer) -> None:
    headers = {**ACCEPT, "Authorization": f"Bearer {server.token}"}
    answer = httpx.post(server.url, json=INIT, headers=headers, timeout=10)
    assert answer.status_code == 200, answer.text
    assert '"name":"stringsh"' in answer.text.replace(" ", "")


def test_a_rebinding_host_or_origin_is_refused_even_with_the_token(server: HttpServer) -> None:
    """DNS rebinding: a page on evil.example resolving to 127.0.0.1 sends its own Host and Origin."""
    headers = {**ACCEPT, "Authorization": f"Bearer {server.token}", "Host": "evil.example"}
    assert httpx.post(server.url, json=INIT, headers=headers, timeout=10).status_code in (400, 403, 421)
    headers = {**ACCEPT, "Authorization": f"Bearer {server.token}", "Origin": "http://evil.example"}
    assert httpx.post(server.url, json=INIT, headers=headers, timeout=10).status_code in (400, 403)


def test_a_non_loopback_address_needs_host(root: Path) -> None:
    done = subprocess.run([*STRINGSH, "--root", str(root), "mcp", "--http", f"10.1.2.3:{free_port()}"],
                          env=server_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-2:] == [
        "stringsh: ERROR(NOT_PERMITTED): 10.1.2.3 is not a loopback address",
        "Serve 127.0.0.1, or name the address with --host 10.1.2.3 (a bearer token is required).",
    ]


def test_a_port_another_program_holds_is_one_refusal_before_any_token_is_printed(root: Path) -> None:
    import socket

    with socket.create_server(("127.0.0.1", 0)) as held:
        port = held.getsockname()[1]
        done = subprocess.run([*STRINGSH, "--root", str(root), "mcp", "--http", f"127.0.0.1:{port}"],
                              env=server_env(), capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (2, default_start() + (
        f"stringsh: ERROR(BUSY): cannot listen on 127.0.0.1:{port}: Address already in use\n"
        "Name another port: --http 127.0.0.1:8765\n"))


def test_an_address_this_machine_lacks_is_named(root: Path) -> None:
    # 192.0.2.0/24 is TEST-NET-1 (RFC 5737): no machine has it
    done = subprocess.run([*STRINGSH, "--root", str(root), "mcp", "--http", "192.0.2.1:8765", "--host", "192.0.2.1"],
                          env=server_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.splitlines()[-2:] == [
        "stringsh: ERROR(INVALID_PAYLOAD): cannot listen on 192.0.2.1:8765: Cannot assign requested address",
        "Name an address this machine has (`ip address` lists them).",
    ]


def test_bad_http_address_and_host_without_http(root: Path) -> None:
    done = subprocess.run([*STRINGSH, "--root", str(root), "mcp", "--http", "127.0.0.1:http"],
                          env=server_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "stringsh: ERROR(INVALID_PAYLOAD): --http wants HOST:PORT, got '127.0.0.1:http'" in done.stderr
    done = subprocess.run([*STRINGSH, "--root", str(root), "mcp", "--host", "0.0.0.0"],
                          env=server_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "stringsh: ERROR(INVALID_PAYLOAD): --host only applies to --http" in done.stderr


def test_the_token_from_the_config_folder_is_used_and_not_printed(root: Path) -> None:
    token = "config-token-" + "k" * 30
    folder = config_dir()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "mcp-token").write_text(token + "\n")
    with http_server(root) as running:
        assert running.token is None
        assert token not in "".join(running.stderr)
        with http_session(running.url, token=token) as client:
            assert client.text("read_text_file", {"path": "notes.txt"}) == "hello\n"
        headers = {**ACCEPT, "Authorization": "Bearer wrong"}
        assert httpx.post(running.url, json=INIT, headers=headers, timeout=10).status_code == 401


def test_a_token_file_inside_the_workspace_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """STRINGSH_CONFIG_DIR pointing into the workspace: the workspace must not choose the token."""
    ws = tmp_path / "ws"
    (ws / "cfg").mkdir(parents=True)
    (ws / "cfg" / "mcp-token").write_text("planted-token-" + "p" * 30)
    monkeypatch.setenv("STRINGSH_CONFIG_DIR", str(ws / "cfg"))
    with http_server(ws) as running:
        assert running.token is not None and "planted" not in running.token


def test_a_wildcard_host_still_needs_the_token(root: Path) -> None:
    """`--host 0.0.0.0`: reached by names stringsh cannot list, so the token alone guards it."""
    with http_server(root, "--host", "0.0.0.0", host="0.0.0.0") as running:
        url = running.url.replace("0.0.0.0", "127.0.0.1")
        assert "serving http://0.0.0.0:" in "".join(running.stderr)
        assert httpx.post(url, json=INIT, headers=ACCEPT, timeout=10).status_code == 401
        with http_session(url, token=running.token) as client:
            assert client.text("read_text_file", {"path": "notes.txt"}) == "hello\n"
