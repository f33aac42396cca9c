"""`completion/complete`: the `{+path}` argument of the resource templates (`file:///ROOT/{+path}`, one per
allowed folder, resources.py) completed from the folder's listing, and `path#…` from the file's block and symbol
ids (a markdown file's markers and headings, a source file's symbols: what `/open path#id` and the symbol tools'
`target` take).

Everything is read through the engine as the connection's client (its roots, confinement, secrets left out);
what cannot be listed offers nothing. stringsh serves no prompts, so a prompt reference completes to nothing."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from mcp_types import CompleteRequestParams, CompleteResult, Completion, ResourceTemplateReference

from stringsh.dialects.mcp.calls import Call, client_name
from stringsh.errors import StringError

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext
    from mcp.server.mcpserver import MCPServer

    from stringsh.dialects.mcp.calls import Calls

#: The spec's cap on the values of one completion.
MAX_VALUES = 100
#: The template argument completed (resources.py names it).
ARGUMENT = "path"


def template_uri(folder: Path) -> str:
    """The resource template of one allowed folder (resources.py lists them)."""
    return folder.as_uri().rstrip("/") + "/{+" + ARGUMENT + "}"


def _shown(name: str) -> bool:
    """A name a client can be offered: valid UTF-8 (a name that is not cannot be sent back in a URI)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def path_values(call: Call, folder: Path, value: str) -> list[str]:
    """Entries of the folder `value` is in whose names start with its last part; folders end with `/`."""
    where, _, prefix = value.rpartition("/")
    try:
        entries = call.ws.list_dir(call.path(str(folder / where) if where else str(folder)), topic=call.topic)
    except (StringError, OSError, ValueError):
        return []
    base = f"{where}/" if where else ""
    return [base + entry.name + ("/" if entry.is_dir else "") for entry in entries
            if entry.name.startswith(prefix) and _shown(entry.name)]


def block_values(call: Call, calls: Calls, folder: Path, value: str) -> list[str]:
    """`path#id` for the file's block and symbol ids starting with what follows `#`."""
    path, _, prefix = value.partition("#")
    if calls.dispatcher is None or not path:
        return []
    from stringsh.documents.fileblocks import file_index

    try:
        index = file_index(call.ws, calls.dispatcher.documents, call.path(str(folder / path)), call.topic)
    except (StringError, OSError, ValueError):
        return []
    ids = index.block_ids() if index is not None else []
    return [f"{path}#{block}" for block in ids if block.startswith(prefix) and _shown(block)]


def complete(call: Call, calls: Calls, uri: str, value: str) -> list[str]:
    """The values for a template argument: paths, or block ids after `#`; none for an unknown template."""
    for folder in call.folders():
        if template_uri(folder) == uri:
            return block_values(call, calls, folder, value) if "#" in value else path_values(call, folder, value)
    return []


def register(server: MCPServer, calls: Calls) -> None:
    """Serve `completion/complete` (which announces the `completions` capability)."""

    async def handle(ctx: ServerRequestContext[Any, Any], params: CompleteRequestParams) -> CompleteResult:
        values: list[str] = []
        if isinstance(params.ref, ResourceTemplateReference) and params.argument.name == ARGUMENT:
            try:
                allowed = await calls.roots.allowed(ctx)
            except StringError:
                allowed = ()
            mine = calls.sessions.client(ctx, client_name(ctx))
            call = Call(calls.ws, allowed, calls.aliases, mine.topic)
            values = await anyio.to_thread.run_sync(complete, call, calls, params.ref.uri, params.argument.value)
        shown = values[:MAX_VALUES]
        return CompleteResult(completion=Completion(values=shown, total=len(values),
                                                    has_more=len(values) > len(shown)))

    server._lowlevel_server.add_request_handler("completion/complete", CompleteRequestParams, handle)
