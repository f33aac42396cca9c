"""The SDK's own MCP client driving a real `python -m stringsh mcp` (stdio or HTTP) from synchronous tests: the
client lives on an anyio blocking portal's thread, so one server can serve a whole test module."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Awaitable, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_types import CallToolResult, Implementation, ListRootsResult, Root

STRINGSH = [sys.executable, "-m", "stringsh"]

RootsFn = Callable[[Any], Awaitable[ListRootsResult]]


def roots_callback(folders: list[Path]) -> RootsFn:
    """A client's roots/list answer naming `folders` (the list is read at each call, so tests may change it)."""

    async def answer(_context: Any) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=folder.resolve().as_uri()) for folder in folders])  # type: ignore[arg-type]

    return answer


#: The user folders stringsh reads (config, state, history): a module's server and the checks on it share them.
USER_DIRS = {"STRINGSH_CONFIG_DIR": "config", "STRINGSH_HISTORY": "history", "XDG_CONFIG_HOME": "xdg-config",
             "XDG_STATE_HOME": "xdg-state", "XDG_CACHE_HOME": "xdg-cache"}


def user_env(home: Path) -> dict[str, str]:
    """Isolated user folders under `home` (a module-scoped server outlives the per-test ones in conftest)."""
    return {name: str(home / sub) for name, sub in USER_DIRS.items()}


def server_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The test's environment (its isolated user folders, or `extra`'s) with this worktree first on the path."""
    env = {**os.environ, **(extra or {})}
    here = str(Path(__file__).resolve().parents[3])
    env["PYTHONPATH"] = here + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


class Client:
    """Calls on one initialized ClientSession, made from test code through the portal."""

    def __init__(self, portal: BlockingPortal, session: ClientSession) -> None:
        self.portal = portal
        self.session = session

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> CallToolResult:
        return self.portal.call(self.session.call_tool, name, arguments or {})

    def text(self, name: str, arguments: dict[str, Any] | None = None) -> str:
        """The one text block of a successful call."""
        result = self.call(name, arguments)
        assert not result.is_error, result.content
        return result.content[0].text  # type: ignore[union-attr]

    def error(self, name: str, arguments: dict[str, Any] | None = None) -> str:
        """The text of a call that must fail as a tool error (isError), not a protocol error."""
        result = self.call(name, arguments)
        assert result.is_error, result.content
        return result.content[0].text  # type: ignore[union-attr]

    def roots_changed(self) -> None:
        with warnings.catch_warnings():  # roots are deprecated from protocol 2026-07-28 on; clients still send it
            warnings.simplefilter("ignore")
            self.portal.call(self.session.send_roots_list_changed)


@asynccontextmanager
async def _session(transport: AbstractAsyncContextManager[Any], name: str, roots: RootsFn | None
                   ) -> Any:
    async with transport as streams:
        read, write = streams[0], streams[1]
        info = Implementation(name=name, version="1.0")
        async with ClientSession(read, write, client_info=info, list_roots_callback=roots) as session:
            await session.initialize()
            yield session


@contextmanager
def stdio_session(root: Path, *, name: str = "test-client", roots: RootsFn | None = None,
                  argv: list[str] | None = None, env: dict[str, str] | None = None,
                  launcher: list[str] | None = None) -> Iterator[Client]:
    """`python -m stringsh --root ROOT mcp` (or `argv` after `-m stringsh`) over real pipes, its SDK client session
    ready; `launcher` is a command that runs the server's command line given after it (`bash -c ... bash`)."""
    argv = argv if argv is not None else ["--root", str(root), "mcp"]
    command = [*(launcher or []), sys.executable, "-m", "stringsh", *argv]
    params = StdioServerParameters(command=command[0], args=command[1:], env=server_env(env), cwd=str(root))
    with start_blocking_portal() as portal, \
            portal.wrap_async_context_manager(_session(stdio_client(params), name, roots)) as session:
        yield Client(portal, session)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class HttpServer:
    """A running `stringsh mcp --http` process: its URL, the token it printed (None: read from the config
    folder) and its stderr so far."""

    def __init__(self, url: str, token: str | None, process: subprocess.Popen[str]) -> None:
        self.url = url
        self.token = token
        self.process = process
        self.stderr: list[str] = []


def wait_until(ready: Callable[[], bool], what: str, process: subprocess.Popen[str] | None = None,
               seconds: float = 30) -> None:
    """Poll `ready` until it holds; fail naming `what` when `process` dies first or after `seconds` (a liveness
    bound for a server or command that never comes up, not a speed check)."""
    deadline = time.monotonic() + seconds
    while not ready():
        if (process is not None and process.poll() is not None) or time.monotonic() > deadline:
            raise AssertionError(what)
        time.sleep(0.05)


def listening(host: str, port: int) -> Callable[[], bool]:
    def ready() -> bool:
        try:
            socket.create_connection((host, port), timeout=1).close()
        except OSError:
            return False
        return True

    return ready


@contextmanager
def http_server(root: Path, *extra: str, host: str = "127.0.0.1", env: dict[str, str] | None = None
                ) -> Iterator[HttpServer]:
    """`python -m stringsh --root ROOT mcp --http HOST:PORT` as a subprocess, once it listens."""
    port = free_port()
    process = subprocess.Popen([*STRINGSH, "--root", str(root), "mcp", "--http", f"{host}:{port}", *extra],
                               env=server_env(env), cwd=str(root), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True)
    assert process.stderr is not None
    try:
        lines = []
        for line in process.stderr:  # the start-up lines, the last naming the token
            lines.append(line)
            if "token:" in line:
                break
        match = re.search(r"token: (\S+)", lines[-1]) if lines else None
        if match is None:
            raise AssertionError(f"server did not start: {''.join(lines)}")
        token = None if match.group(1) == "from" else match.group(1)
        server = HttpServer(f"http://{host}:{port}/mcp", token, process)
        server.stderr.extend(lines)
        reader = threading.Thread(target=lambda: server.stderr.extend(process.stderr or ()), daemon=True)
        reader.start()
        wait_until(listening(host, port), f"server did not listen: {''.join(server.stderr)}", process)
        yield server
    finally:
        process.terminate()
        process.wait(timeout=10)


@contextmanager
def http_session(url: str, *, token: str | None = None, name: str = "http-client",
                 roots: RootsFn | None = None) -> Iterator[Client]:
    """The SDK's streamable HTTP client on `url`, with the bearer token when given."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else {}

    @asynccontextmanager
    async def transport() -> Any:
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http, \
                streamable_http_client(url, http_client=http) as streams:
            yield streams

    with start_blocking_portal() as portal, \
            portal.wrap_async_context_manager(_session(transport(), name, roots)) as session:
        yield Client(portal, session)
