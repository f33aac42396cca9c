"""One tool call on the engine: who asks (the client's name from `initialize`), which folders this connection may
use (its MCP roots, roots.py), the call run on a worker thread under `workspace.speaking("mcp", agent=...)`, and
every failure turned into an MCP tool error (`isError: true`, `ERROR(CODE): message` and a hint) instead of a
protocol error or a traceback."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio.to_thread
from mcp_types import CallToolResult, ContentBlock, TextContent

from stringsh.dialects.mcp.roots import ClientRoots
from stringsh.errors import StringError

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext
    from mcp.server.mcpserver import Context

    from stringsh.dispatcher import Dispatcher
    from stringsh.workspace.engine import Workspace

#: The topic MCP calls journal their changes in: `undo` over MCP walks back MCP's own changes.
TOPIC = "mcp"

log = logging.getLogger("stringsh.mcp")


def error_result(exc: StringError) -> CallToolResult:
    """A refusal as the client sees it: one text block, the coded message then the hint (what to do next)."""
    return CallToolResult(content=[TextContent(type="text", text=f"ERROR({exc.code}): {exc.text}")], is_error=True)


def text_result(text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)])


class Call:
    """What a tool's engine work sees: the workspace, the topic, and the path check of this connection's roots."""

    def __init__(self, workspace: Workspace, allowed: tuple[Path, ...] | None, aliases: dict[str, str]) -> None:
        self.ws = workspace
        self.topic = TOPIC
        #: None: every policy root; else the client's roots as intersected with the policy's (maybe none).
        self.allowed = allowed
        self.aliases = aliases

    def path(self, path: str) -> str:
        """`path` once it is known to lie in this connection's roots (the engine confines it again), an absolute
        path under the root's other spelling (`--root` through a symlink) put in the real one."""
        if not isinstance(path, str) or not path:
            raise StringError("INVALID_PATH", "Empty path", "Name a file or folder inside an allowed directory "
                              "(list_allowed_directories lists them).")
        for alias, real in self.aliases.items():
            if path == alias or path.startswith(alias + "/"):
                path = real + path[len(alias):]
                break
        if self.allowed is None:
            return path
        if not self.allowed:
            from stringsh.dialects.mcp.roots import none_allowed

            raise none_allowed()
        where = self.location(path)
        if not any(where == folder or where.is_relative_to(folder) for folder in self.allowed):
            raise StringError(
                "FILE_NOT_ALLOWED", f"{path} is outside the client's roots",
                "Use a path inside one of the client's roots (list_allowed_directories lists them).")
        return path

    def location(self, path: str) -> Path:
        """The real folder location of a confined path: the engine's resolved path of the nearest existing part."""
        rel = self.ws.relative(path)
        info = self.ws.stat(path)
        if info is not None:
            rel = info.rel
        else:
            parent = rel.rpartition("/")[0] if "/" in rel.split(":", 1)[-1] else ""
            if parent:
                parent_info = self.ws.stat(parent)
                if parent_info is not None:
                    rel = parent_info.rel + "/" + rel.rpartition("/")[2]
        return self.absolute(rel)

    def absolute(self, rel: str) -> Path:
        """The absolute path of a root-relative path (`id:rel` in another root)."""
        roots = self.ws.confiner.root_list()
        main = roots[0][1]
        ident, colon, rest = rel.partition(":")
        for root_id, folder, _ in roots[1:]:
            if colon and root_id == ident:
                return Path(os.path.normpath(folder / rest)) if rest else folder
        return main if rel == "." else Path(os.path.normpath(main / rel))

    def folders(self) -> list[Path]:
        """The folders this connection may use: its roots, or every policy root."""
        if self.allowed is not None:
            return list(self.allowed)
        return [folder for _, folder, _ in self.ws.confiner.root_list()]


class Calls:
    """The server's calls on one workspace: client names and roots per connection, the worker-thread hop."""

    def __init__(self, workspace: Workspace, aliases: dict[str, str] | None = None,
                 dispatcher: Dispatcher | None = None) -> None:
        self.ws = workspace
        #: The String Command path (tools_commands.py); None where only the engine was given (no command tools).
        self.dispatcher = dispatcher
        self.roots = ClientRoots(workspace)
        #: Other spellings of the workspace root (the `--root` given, through a symlink) -> its real path.
        self.aliases = aliases or {}

    async def run(self, ctx: Context[Any, Any], work: Callable[[Call], str | CallToolResult | list[ContentBlock]]
                  ) -> CallToolResult:
        """Run `work` on a worker thread as the client, under its roots; coded errors become tool errors."""
        request = ctx.request_context
        try:
            allowed = await self.roots.allowed(request)
        except StringError as exc:
            return error_result(exc)
        agent = client_name(request)
        call = Call(self.ws, allowed, self.aliases)

        def speak() -> str | CallToolResult | list[ContentBlock]:
            with self.ws.speaking("mcp", agent=agent):
                return work(call)

        try:
            result = await anyio.to_thread.run_sync(speak)
        except StringError as exc:
            return error_result(exc)
        except Exception as exc:  # a bug must not end the session or leak a traceback to the client
            log.exception("tool call failed")
            return error_result(StringError("INTERNAL_ERROR", f"{type(exc).__name__} inside stringsh",
                                            "The session goes on; the server's stderr has the details."))
        if isinstance(result, str):
            return text_result(result)
        if isinstance(result, list):
            return CallToolResult(content=result)
        return result


def client_name(request: ServerRequestContext[Any, Any]) -> str | None:
    """The client's own name from `initialize` (clientInfo), for the journal and audit records."""
    params = request.session.client_params
    if params is None:
        return None
    name = params.client_info.name.strip()
    return name[:80] if name else None
