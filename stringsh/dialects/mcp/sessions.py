"""Each MCP connection is a client of its own: the stdio peer, and each streamable-HTTP session (`Mcp-Session-Id`).

A connection gets, on its first call, a client id (whose undo history its changes join: `Workspace.request`) and a
topic `mcp-<name>-<id>` (its open document, its shell with its cwd and exports, what `undo` walks back; `<name>` is
the client's `clientInfo.name` made topic-safe, so `/changes` and the audit say whose change it was). Nothing of one
connection is seen by another. When the connection ends (the stdio pipe closes, the client sends HTTP DELETE, or
the SDK ends an HTTP session idle for `IDLE_SECONDS`) its topic is dropped and its shell stopped."""

from __future__ import annotations

import logging
import re
import secrets
import threading
from typing import TYPE_CHECKING, Any

from stringsh import serving
from stringsh.dialects.mcp.roots import connection_key

if TYPE_CHECKING:
    from collections.abc import Callable

    from mcp.server.connection import Connection
    from mcp.server.context import ServerRequestContext

    from stringsh.dispatcher import Dispatcher
    from stringsh.workspace import Workspace

log = logging.getLogger("stringsh.mcp")

#: An HTTP session with no request in flight and no open stream this long is ended (its shell stopped).
IDLE_SECONDS = 30 * 60
#: How much of the client's name goes into its topic (a topic name is at most 64 characters).
NAME_WIDTH = 32
#: Where a connection keeps its client (the SDK's per-connection scratch state).
STATE_KEY = "stringsh.client"


class McpClient:
    """One connection's identity: its topic and the client id its changes are owned by."""

    __slots__ = ("client", "key", "topic")

    def __init__(self, key: str, topic: str, client: str) -> None:
        self.key = key
        self.topic = topic
        self.client = client


def topic_name(agent: str | None, short: str) -> str:
    """`mcp-<name>-<short>`: the client's name reduced to topic characters (protocol/topics.py), or `mcp-<short>`."""
    name = re.sub(r"[^A-Za-z0-9_-]+", "_", agent or "").strip("_-")[:NAME_WIDTH].rstrip("_-")
    return f"mcp-{name}-{short}" if name else f"mcp-{short}"


class Sessions:
    """The live connections of one server, each its own client and topic; ended with their connection."""

    def __init__(self, workspace: Workspace, dispatcher: Dispatcher | None,
                 forget: Callable[[str], None] | None = None) -> None:
        self.ws = workspace
        self.dispatcher = dispatcher
        #: Called with a connection's key when it ends (the roots remembered for it).
        self.forget = forget
        self.lock = threading.Lock()
        #: Live clients by connection key (HTTP session id, or `stdio`).
        self.live: dict[str, McpClient] = {}

    def client(self, request: ServerRequestContext[Any, Any], agent: str | None) -> McpClient:
        """The client of the connection `request` came on, made on its first call."""
        key = connection_key(request)
        with self.lock:
            known = self.live.get(key)
            if known is not None:
                return known
            made = self.live[key] = self._made(key, agent)
        serving.keep_made()
        connection = _connection(request)
        if connection is not None:  # the SDK unwinds it when the connection ends, however it ends
            import anyio.to_thread

            connection.exit_stack.push_async_callback(anyio.to_thread.run_sync, self.end, key)
        return made

    def adopt(self, key: str, agent: str | None) -> McpClient:
        """The client of a connection whose end its transport reports itself (`end`): the stdio front makes it
        before the SDK is loaded."""
        with self.lock:
            known = self.live.get(key)
            if known is None:
                known = self.live[key] = self._made(key, agent)
            return known

    def _made(self, key: str, agent: str | None) -> McpClient:
        """A new client with a topic no live one has (under the lock); its topic made at once, so the shell of
        a dispatcher that warms shells starts while the connection's first calls run."""
        taken = {client.topic for client in self.live.values()}
        while True:
            topic = topic_name(agent, secrets.token_hex(3))
            if topic not in taken:
                if self.dispatcher is not None and self.dispatcher.warm_shells:
                    self.dispatcher.session(topic)
                return McpClient(key, topic, f"mcp-{secrets.token_hex(8)}")

    def end(self, key: str) -> None:
        """The connection is gone: its topic dropped and its shell stopped (blocking; off the event loop)."""
        with self.lock:
            client = self.live.pop(key, None)
        if client is None:
            return
        if self.forget is not None:
            self.forget(key)
        if self.dispatcher is not None:
            self.dispatcher.end_topic(client.topic)
        log.info("stringsh mcp: session %s ended", client.topic)


def _connection(request: ServerRequestContext[Any, Any]) -> Connection | None:
    """The SDK's per-connection object behind a request (its `exit_stack` runs when the connection closes); the
    SDK hands a tool only the request's session, which holds it."""
    connection = getattr(request.session, "_connection", None)
    return connection if hasattr(connection, "exit_stack") else None
