"""The SDK's own high-level client (`mcp.Client`) on the newest protocol (2026-07-28: no handshake, every request
its own envelope), driving a real `python -m stringsh mcp` over stdio or streamable HTTP from synchronous tests;
the client lives on an anyio blocking portal's thread. Also what a test needs to see of the processes: the
audit log's records, and whether a command runs (a process listing)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from concurrent.futures import Future
from contextlib import AbstractContextManager, asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.subscriptions import ServerEvent, Subscription
from mcp_types import CallToolResult, Implementation
from mcp_types.version import LATEST_MODERN_VERSION

from tests.dialects.mcp.client import STRINGSH, server_env

#: Seconds a test waits for an event that must come (a correct run sees it in a fraction of a second).
WAIT = 20

MessageHandler = Callable[[Any], Awaitable[None]]


class Modern:
    """Calls on one `mcp.Client` that negotiated the newest protocol, made from test code through the portal."""

    def __init__(self, portal: BlockingPortal, client: Client) -> None:
        self.portal = portal
        self.client = client

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> CallToolResult:
        return self.portal.call(self.client.call_tool, name, arguments or {})

    def text(self, name: str, arguments: dict[str, Any] | None = None) -> str:
        """The one text block of a successful call."""
        result = self.call(name, arguments)
        assert not result.is_error, result.content
        return result.content[0].text  # type: ignore[union-attr]

    def start(self, name: str, arguments: dict[str, Any],
              progress: Callable[[float, float | None, str | None], Awaitable[None]] | None = None
              ) -> Future[CallToolResult]:
        """A call in the background; cancelling the future cancels it (on HTTP: the client closes its stream)."""
        return self.portal.start_task_soon(
            lambda: self.client.session.call_tool(name, arguments, progress_callback=progress))

    def listen(self, **notifications: Any) -> AbstractContextManager[Subscription]:
        """A `subscriptions/listen` stream, open inside the `with` (acknowledged on entry), closed on exit."""
        return self.portal.wrap_async_context_manager(self.client.listen(**notifications))

    def next_event(self, subscription: Subscription) -> ServerEvent:
        """The stream's next event (fails after WAIT seconds)."""

        async def next_one() -> ServerEvent:
            with anyio.fail_after(WAIT):
                return await subscription.__anext__()

        return self.portal.call(next_one)

    def read(self, uri: str) -> str:
        result = self.portal.call(self.client.read_resource, uri)
        return result.contents[0].text  # type: ignore[union-attr]


@contextmanager
def _opened(target: Any, handler: MessageHandler | None) -> Iterator[Modern]:
    info = Implementation(name="modern-client", version="1.0")
    with start_blocking_portal() as portal, portal.wrap_async_context_manager(
            Client(target, mode="auto", client_info=info, message_handler=handler)) as client:
        assert client.protocol_version == LATEST_MODERN_VERSION
        yield Modern(portal, client)


@contextmanager
def modern_stdio(root: Path, env: dict[str, str], handler: MessageHandler | None = None) -> Iterator[Modern]:
    """`python -m stringsh --root ROOT mcp` over real pipes, on the newest protocol."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "stringsh", "--root", str(root), "mcp"],
                                   env=server_env(env), cwd=str(root))
    with _opened(params, handler) as modern:
        yield modern


@contextmanager
def modern_http(url: str, token: str | None, handler: MessageHandler | None = None) -> Iterator[Modern]:
    """The SDK's streamable HTTP client on a running `stringsh mcp --http`, on the newest protocol."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    @asynccontextmanager
    async def transport() -> Any:
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http, \
                streamable_http_client(url, http_client=http) as streams:
            yield streams

    with _opened(transport(), handler) as modern:
        yield modern


def audit(root: Path, env: dict[str, str], count: int) -> list[dict[str, Any]]:
    """The workspace's newest `count` audit records, as `stringsh audit tail --json` gives them."""
    done = subprocess.run([*STRINGSH, "--root", str(root), "audit", "tail", "--json", "-n", str(count)],
                          env=server_env(env), capture_output=True, text=True, timeout=60)
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def running(*argv: str) -> bool:
    """Whether a process runs with exactly this command line (any user, any sandbox: the process listing)."""
    wanted = "\0".join(argv).encode() + b"\0"
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                    if cmdline.read() == wanted:
                        return True
            except OSError:
                continue
    return False
