"""The MCP server object: stringsh's name, version and instructions, its tools registered from small modules
(each `register(server, calls)`), and the roots notification watched (roots.py)."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from stringsh import __version__
from stringsh.dialects.mcp.calls import Calls, make_calls
from stringsh.dialects.mcp.identity import INSTRUCTIONS, NAME
from stringsh.dialects.mcp.roots import ROOTS_CHANGED

if TYPE_CHECKING:
    from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
    from mcp.server.mcpserver import MCPServer

    from stringsh.dispatcher import Dispatcher
    from stringsh.workspace import Workspace

#: The modules whose `register(server, calls)` adds tools: the reference filesystem server's set first, then
#: stringsh's own String Commands (registered only when the Dispatcher is given); then the other capabilities
#: (log messages, completion, no prompts) and, once every tool is in, their titles and their schemas inlined.
TOOL_MODULES = ("tools_files", "tools_commands", "tools_symbols", "tools_map", "resources", "logging_capability",
                "completion", "prompts", "titles", "inlining")


def build_server(workspace: Workspace, root_spelling: str | None = None, dispatcher: Dispatcher | None = None,
                 calls: Calls | None = None) -> MCPServer:
    """`root_spelling`: the workspace folder as the user named it, accepted in absolute paths as its real path;
    `dispatcher`: the one owning `workspace`, for the String Command tools; `calls`: made already (the stdio front
    answers calls on them before the SDK is loaded), else made here."""
    from stringsh.dialects.mcp.coded import CodedServer

    if calls is None:
        calls = make_calls(workspace, root_spelling, dispatcher)
    server: MCPServer = CodedServer(NAME, version=__version__, instructions=INSTRUCTIONS, log_level="WARNING",
                                  warn_on_duplicate_tools=False)

    async def watch_roots(ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.method == ROOTS_CHANGED:
            calls.roots.changed(ctx)
        return await call_next(ctx)

    server.middleware.append(watch_roots)
    server.calls = calls  # the stdio front's shortcut answers some tools on the same calls (shortcut.py)
    for name in TOOL_MODULES:
        import_module(f"stringsh.dialects.mcp.{name}").register(server, calls)
    return server
