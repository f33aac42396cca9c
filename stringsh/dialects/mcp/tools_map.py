"""`repo_map`: the repository map as an MCP tool, one String Command (`/map [--budget N] -- path…`) run through the
Dispatcher in the connection's topic, as the symbol tools run theirs, so its reply, refusals, masking and audit
record are `/map`'s exactly."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from mcp.server.mcpserver import Context
from pydantic import Field

from stringsh.dialects.mcp.outputs import TextOutput
from stringsh.dialects.mcp.requests import Arg, build, flag
from stringsh.dialects.mcp.tools_commands import READ, in_roots, reply_result, whole_workspace

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from stringsh.dialects.mcp.calls import Call, Calls


def map_request(call: Call, paths: list[str] | None, budget: int | None) -> str:
    """`/map`: it ranks the whole workspace, so it is refused when the client's roots narrow the policy's."""
    whole_workspace(call, "repo_map")
    args: list[Arg] = [flag("--budget"), ("budget", str(budget))] if budget is not None else []
    focus = [("paths", in_roots(call, path)) for path in paths or []]
    return build("/map", [*args, flag("--"), *focus])


def register(server: MCPServer, calls: Calls) -> None:
    """Add `repo_map`; it needs the Dispatcher (`stringsh mcp` passes it)."""
    dispatcher = calls.dispatcher
    if dispatcher is None:
        return

    @server.tool(annotations=READ)
    async def repo_map(ctx: Context,
                       paths: Annotated[list[str] | None, Field(description="Files or folders to focus the ranking "
                                                                            "on (default: none, every file alike)")]
                       = None,
                       budget: Annotated[int | None, Field(ge=64, le=1_000_000, description="Tokens the map may "
                                                                                           "take (4 characters "
                                                                                           "each; default 1024)")]
                       = None) -> TextOutput:
        """The repository map (/map): the most referenced definitions, ranked by the reference graph (PageRank),
        each `L<line> #<id>  <signature>` under its file, within a token budget; paths focus the ranking."""
        return await calls.run(ctx, lambda call: reply_result(dispatcher, map_request(call, paths, budget),
                                                              call.topic, tool=call.tool))
