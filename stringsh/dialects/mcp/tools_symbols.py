"""The symbol tools: a source file's definitions as blocks (render/code/), each tool one String Command run through
the Dispatcher in the connection's topic, as tools_commands.py runs its own, so the replies, refusals, masking,
journal and audit records are `/symbols`', `/open`'s and `/edit`'s exactly:

| Tool | Request |
|---|---|
| `symbols_overview(path)` | `/symbols * path` |
| `find_symbol(query, path?, maxResults?)` | `/symbols [--max N] -- QUERY [path]` |
| `view_symbol(target, fromLine?, toLine?, plain?)` | `/open [--from N] [--to M] -- path#Symbol` (or plain) |
| `replace_symbol(target, body, force?)` | `/edit [--force] -- path#Symbol` + body |
| `insert_symbol(target, body, position)` | `/edit --after|--before [--force] -- path#Symbol` + body |
| `find_references(name, path?, maxResults?)` | `/symbols --refs [--max N] -- NAME [path]` |
| `find_definition(position)` | `/symbols --def -- path:LINE:COL` |
| `rename_symbol(target, newName, dryRun?)` | `/rename [--dry-run] -- path#Symbol NEW` |
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Literal

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from stringsh.dialects.mcp import replyshapes
from stringsh.dialects.mcp.outputs import (
    DefinitionOutput,
    OpenOutput,
    ReferencesOutput,
    ReplyOutput,
    SymbolsOutput,
)
from stringsh.dialects.mcp.requests import Arg, build, flag
from stringsh.dialects.mcp.shaped import Shaped
from stringsh.dialects.mcp.tools_commands import (
    CHANGE,
    READ,
    REWRITE,
    Shape,
    changed,
    in_roots,
    opened,
    parsed,
    reply_result,
    whole_workspace,
)
from stringsh.errors import StringError
from stringsh.escapes import json_name

if TYPE_CHECKING:
    from collections.abc import Callable

    from mcp.server.mcpserver import MCPServer

    from stringsh.dialects.mcp.calls import Call, Calls

Target = Annotated[str, Field(description="`path#Symbol`: a definition's id as the outline lists it, e.g. "
                                          "`src/app.py#Parser.parse`")]
MaxResults = Annotated[int | None, Field(ge=1, description="Stop after N results")]


def symbol_target(call: Call, target: str) -> str:
    """`path#Symbol`, its path checked against the connection's roots."""
    path, _, block = target.partition("#")
    if not path or not block:
        raise StringError("INVALID_TARGET", f"Not a path#Symbol: {target[:200]}",
                          "Name the file and the symbol: src/app.py#Parser.parse (symbols_overview lists them).")
    return in_roots(call, target)


def plain_body(call: Call, target: str) -> Shaped:
    """A definition's lines alone and whole (documents/symbolbody.py), read through the engine as the client."""
    from stringsh.documents.symbolbody import symbol_body

    symbol_target(call, target)
    path, _, symbol_id = target.partition("#")
    return Shaped(symbol_body(call.ws, call.path(path), path, symbol_id, call.topic).text,
                  {"path": json_name(call.ws.relative(call.path(path))), "block": symbol_id})


def _refuse_window() -> str:
    raise StringError("INVALID_PAYLOAD", "plain gives the whole definition: fromLine and toLine do not go with it",
                      "Drop fromLine and toLine, or plain.")


def search_request(call: Call, args: list[Arg], query: str, path: str | None, tool: str) -> str:
    if path is None:
        whole_workspace(call, f"{tool} without a path")
    where = [("path", in_roots(call, path))] if path is not None else []
    return build("/symbols", [*args, flag("--"), ("query", query), *where])


def register(server: MCPServer, calls: Calls) -> None:
    """Add the symbol tools; they need the Dispatcher (`stringsh mcp` passes it)."""
    dispatcher = calls.dispatcher
    if dispatcher is None:
        return

    async def execute(ctx: Context, make: Callable[[Call], str], shape: Shape = changed) -> CallToolResult:
        return await calls.run(ctx, lambda call: reply_result(dispatcher, make(call), call.topic, shape, call.tool))

    @server.tool(annotations=READ)
    async def symbols_overview(path: Annotated[str, Field(description="A source file (or a folder)")],
                               ctx: Context) -> SymbolsOutput:
        """Every definition of a source file (/symbols * path): `path:Lstart-Lend  kind  #id` per symbol, with
        qualified ids (`#Parser.parse`) that view_symbol, replace_symbol and insert_symbol take."""
        return await execute(ctx, lambda call: search_request(call, [], "*", path, "symbols_overview"),
                             parsed(replyshapes.symbols))

    @server.tool(annotations=READ)
    async def find_symbol(query: Annotated[str, Field(description="A name, part of one, or a glob (`handle*`)")],
                          ctx: Context,
                          path: Annotated[str | None, Field(description="A folder or file (default: the "
                                                                        "workspace)")] = None,
                          maxResults: MaxResults = None) -> SymbolsOutput:
        """Definitions whose name or qualified id matches (/symbols), exact names first; secrets and ignored files
        never read."""

        def text(call: Call) -> str:
            args = [flag("--max"), ("maxResults", str(maxResults))] if maxResults is not None else []
            return search_request(call, args, query, path, "find_symbol")

        return await execute(ctx, text, parsed(replyshapes.symbols))

    @server.tool(annotations=READ)
    async def view_symbol(target: Target, ctx: Context,
                          fromLine: Annotated[int | None, Field(ge=1, description="First file line to show")] = None,
                          toLine: Annotated[int | None, Field(ge=1, description="Last file line to show")] = None,
                          plain: Annotated[bool, Field(description="The definition's lines alone, whole: no line "
                                                                   "numbers, no cut (the body replace_symbol takes "
                                                                   "back)")] = False,
                          ) -> OpenOutput:
        """One definition with its decorators and leading comments, numbered with the file's line numbers
        (/open path#Symbol); with `plain`, its lines alone and whole, as replace_symbol takes them."""
        if plain:
            if fromLine is not None or toLine is not None:
                return await calls.run(ctx, lambda call: _refuse_window())
            return await calls.run(ctx, lambda call: plain_body(call, target))

        def text(call: Call) -> str:
            args: list[Arg] = [flag("--from"), ("fromLine", str(fromLine))] if fromLine is not None else []
            args += [flag("--to"), ("toLine", str(toLine))] if toLine is not None else []
            return build("/open", [*args, flag("--"), ("target", symbol_target(call, target))])

        return await execute(ctx, text, opened)

    @server.tool(annotations=REWRITE)
    async def replace_symbol(target: Target,
                             body: Annotated[str, Field(description="The whole new definition (decorators and "
                                                                    "comments included), as view_symbol with "
                                                                    "plain gives it: no line numbers")],
                             ctx: Context,
                             force: Annotated[bool, Field(description="Write even a body that is not the same "
                                                                      "definition or breaks the parse")] = False,
                             ) -> ReplyOutput:
        """Replace exactly one definition's bytes (/edit path#Symbol): the file's indentation, line endings and
        encoding kept; refused unless the body is the same kind and name and parses. Undoable."""

        def text(call: Call) -> str:
            args = [flag("--force")] if force else []
            return build("/edit", [*args, flag("--"), ("target", symbol_target(call, target))], body)

        return await execute(ctx, text)

    @server.tool(annotations=CHANGE)
    async def insert_symbol(target: Target,
                            body: Annotated[str, Field(description="The new definition")],
                            ctx: Context,
                            position: Annotated[Literal["after", "before"], Field(description="Beside which side "
                                                                                              "of the symbol")]
                            = "after",
                            force: Annotated[bool, Field(description="Write even a body that breaks the parse")]
                            = False,
                            ) -> ReplyOutput:
        """Add a new definition right after (or before) a symbol (/edit path#Symbol --after), at its indentation
        with the file's blank lines between definitions. Undoable."""

        def text(call: Call) -> str:
            args = [flag(f"--{position}")] + ([flag("--force")] if force else [])
            return build("/edit", [*args, flag("--"), ("target", symbol_target(call, target))], body)

        return await execute(ctx, text)

    @server.tool(annotations=READ)
    async def find_references(name: Annotated[str, Field(description="An identifier, spelled exactly; or "
                                                                     "`path#Symbol` for the references attributable "
                                                                     "to that definition")],
                              ctx: Context,
                              path: Annotated[str | None, Field(description="A folder or file (default: the "
                                                                            "workspace)")] = None,
                              maxResults: MaxResults = None) -> ReferencesOutput:
        """Identifiers spelled `name` in source files (/symbols --refs): `path:line:column: role in #Container:
        text`, the role by scope (definition, local, parameter, import, qualified, member, use). By syntax, not
        types. `path#Symbol`: only the references attributable to that definition, then the ambiguous ones."""

        def text(call: Call) -> str:
            args = [flag("--refs")] + ([flag("--max"), ("maxResults", str(maxResults))] if maxResults else [])
            query = symbol_target(call, name) if "#" in name else name
            return search_request(call, args, query, path, "find_references")

        return await execute(ctx, text, parsed(replyshapes.references))

    @server.tool(annotations=READ)
    async def find_definition(position: Annotated[str, Field(description="`path:LINE:COLUMN` of a name, as "
                                                                         "find_references lists it")],
                              ctx: Context) -> DefinitionOutput:
        """The definitions of the name at a position (/symbols --def): a local binding or parameter first, then the
        file's own definition, then the import followed to its file, else every definition of the name."""

        def text(call: Call) -> str:
            path, line, column = [*position.rsplit(":", 2), "", ""][:3]
            checked = f"{in_roots(call, path)}:{line}:{column}" if line.isdigit() and column.isdigit() else position
            return build("/symbols", [flag("--def"), flag("--"), ("position", checked)])

        return await execute(ctx, text, parsed(replyshapes.definitions))

    @server.tool(annotations=CHANGE)
    async def rename_symbol(target: Target,
                            newName: Annotated[str, Field(description="The new name (an identifier of the "
                                                                      "file's language)")],
                            ctx: Context,
                            dryRun: Annotated[bool, Field(description="Only show the diff of every file")] = False,
                            ) -> ReplyOutput:
        """Rename a definition and every reference syntax attributes to it, across files, as one change set
        (/rename path#Symbol NEW): one undo takes it all back; refused (AMBIGUOUS_REFERENCE) with the sites it
        cannot attribute listed, NAME_TAKEN when the name is taken where a site would see it."""

        def text(call: Call) -> str:
            args = [flag("--dry-run")] if dryRun else []
            return build("/rename", [*args, flag("--"), ("target", symbol_target(call, target)), ("newName", newName)])

        return await execute(ctx, text)
