"""No prompts: the SDK's server announces `prompts` and serves `prompts/list` and `prompts/get` whatever it
holds; stringsh has none, so both handlers are taken away and the capability is no longer announced.

Why none: the agents that use stringsh (Claude Code, Codex, Cursor, the SDK clients) call tools; prompts are
user-picked templates a harness shows as menu entries, and a workspace's files and commands need no canned
wording. A client asking anyway gets JSON-RPC `-32601 Method not found`, as for any method not served."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from stringsh.dialects.mcp.calls import Calls

#: The prompt methods the SDK registers by default.
METHODS = ("prompts/list", "prompts/get")


def register(server: MCPServer, calls: Calls) -> None:
    """Withdraw the SDK's prompt handlers (the SDK has no public way to leave them out)."""
    del calls
    for method in METHODS:
        server._lowlevel_server._request_handlers.pop(method, None)
