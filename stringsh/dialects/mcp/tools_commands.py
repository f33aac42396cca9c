"""stringsh's own tools: String Commands run through the Dispatcher every front end uses, in the connection's own topic
(sessions.py; the one its file tools journal in, so `undo` takes their changes back too), as its client. Each tool
builds a request from its arguments (requests.py quotes them; nothing a client sends can add a flag, a second
command or end a heredoc), and its result is the reply text exactly as `stringsh -c` prints it, `isError` when the
reply is a failure (`ERROR(CODE): …`, or a shell command's non-zero exit, whose reply keeps its `exit: N | cwd: …`
text).

When the client's roots narrow the policy's, the tools that reach the whole workspace (`string`, `bash`, `patch`,
`apply_patch`, `changes`, `revert`, `undo`, `grep` without a path, `open @shortcut`) are refused: only the path
tools can be kept inside the roots."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import Context
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from stringsh.dialects.mcp import replyshapes
from stringsh.dialects.mcp.calls import Call, Calls
from stringsh.dialects.mcp.outputs import BashOutput, ChangesOutput, GrepOutput, OpenOutput, ReplyOutput
from stringsh.dialects.mcp.requests import Arg, build, flag, shell_request
from stringsh.dialects.mcp.shaped import Parse, Shaped
from stringsh.dialects.mcp.textedit import changed_line
from stringsh.errors import StringError
from stringsh.escapes import json_name
from stringsh.protocol.request import REQUEST_ID

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from stringsh.dispatcher import Dispatcher
    from stringsh.protocol.response import Reply

READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
#: `/open` also fetches web pages (`https://…`).
READ_WEB = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=True)
CHANGE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False)
REWRITE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)
#: Anything String can do: commands, the shell, web pages.
ANYTHING = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=True)

ChangeId = Annotated[int, Field(ge=1, description="A change id as `changes` lists it")]


#: A command tool's structure: fields from the reply itself and a reading of its shown text (shaped.py).
Shape = Callable[["Reply"], "tuple[dict[str, Any], Parse | None]"]


def text_only(reply: Reply) -> tuple[dict[str, Any], Parse | None]:
    return {}, None


def changed(reply: Reply) -> tuple[dict[str, Any], Parse | None]:
    """The change set the request made (None: none), the id `changes` and `revert` take."""
    return {"changeId": reply.change}, None


def opened(reply: Reply) -> tuple[dict[str, Any], Parse | None]:
    """The document shown: its path and block as the reply's fields name them."""
    fields = reply.fields or {}
    path, block = fields.get("path"), fields.get("block")
    return {"path": None if path is None else json_name(path), "block": block}, None


def parsed(parse: Parse) -> Shape:
    """Structure read back from the reply's text as the client gets it (replyshapes.py)."""
    return lambda reply: ({}, parse)


def reply_result(dispatcher: Dispatcher, text: str, topic: str, shape: Shape = text_only, tool: str | None = None
                 ) -> Shaped | CallToolResult:
    """Run one request in the connection's topic; the reply text as `stringsh -c` prints it, isError when it
    failed, and a last line naming the change set it made, as edit_file's does (`Change 12, undoable.`); a
    success with its structure (`shape`). A refusal's hint names MCP tools (hinting.py), the tool `tool`'s own
    first; the `string` tool's stays String Commands' (its caller speaks them)."""
    from stringsh.dialects.mcp.cancelling import commands_turn
    from stringsh.dialects.mcp.hinting import mcp_hint

    hints = None if tool in (None, "string") else lambda exc: mcp_hint(exc, tool)
    with commands_turn():  # a cancel interrupts only this call's own shell command
        reply = dispatcher.execute(text, topic, hints)
    shown = reply.text if reply.change is None else f"{reply.text}\n{changed_line(reply.change)}"
    if not reply.ok:
        return CallToolResult(content=[TextContent(type="text", text=shown)], is_error=True)
    fields, parse = shape(reply)
    return Shaped(shown, fields, parse)


def whole_workspace(call: Call, tool: str) -> None:
    """Refuse a tool that reaches every file when this connection's roots narrow the policy's."""
    if call.allowed is None or set(call.allowed) == {folder for _, folder, _ in call.ws.confiner.root_list()}:
        return
    raise StringError("FILE_NOT_ALLOWED", f"{tool} reaches the whole workspace, beyond the client's roots",
                      "Use the path tools (open, grep with a path, edit_block, replace) inside the roots.")


def no_bash_mode(request: str) -> str:
    """`request` unless it is `/bash`: the mode would send every later tool's request in this topic to the shell."""
    header = request.lstrip("\r\n").split("\n", 1)[0].strip()
    match = REQUEST_ID.match(header) if header.startswith("[") else None
    header = header[match.end():] if match else header
    if header.startswith("//"):
        header = header[1:]
    if header[:1] == "/" and [word.lower() for word in header[1:].split(maxsplit=1)[:1]] == ["bash"]:
        raise StringError("COMMAND_UNSUPPORTED", "/bash mode is not available over MCP: every tool shares this "
                          "session's topic", "Use the bash tool, or !command in a string request.")
    return request


def in_roots(call: Call, target: str) -> str:
    """`target` with its path part checked against the connection's roots and an absolute path under the root's
    other spelling put in the real one (call.path); a `#block` or `:L5` suffix kept."""
    if target.startswith("@"):  # a shortcut names a link of the open document: anywhere in the workspace
        whole_workspace(call, "open @shortcut")
    if target.startswith(("#", "@", "https://", "http://")):
        return target
    path, hash_, block = target.partition("#")
    return (call.path(path) if path else path) + hash_ + block


def register(server: MCPServer, calls: Calls) -> None:
    """Add stringsh's own tools; they need the Dispatcher (`stringsh mcp` passes it)."""
    dispatcher = calls.dispatcher
    if dispatcher is None:
        return

    async def execute(ctx: Context, make: Callable[[Call], str], tool: str | None = None,
                      shape: Shape = changed) -> CallToolResult:
        """`tool`: the name of a tool that reaches the whole workspace (refused under narrowed roots); `shape`:
        the structure of its reply (outputs.py)."""

        def work(call: Call) -> Shaped | CallToolResult:
            if tool is not None:
                whole_workspace(call, tool)
            return reply_result(dispatcher, make(call), call.topic, shape, call.tool)

        return await calls.run(ctx, work)

    @server.tool(annotations=ANYTHING)
    async def string(request: Annotated[str, Field(description="A String Command request: a header line and an "
                                                               "optional body, e.g. `/open README.md#setup` or "
                                                               "`/edit a.md#x <<EOF` … `EOF`")],
                     ctx: Context) -> ReplyOutput:
        """Run any String Command (`/help` lists them) in this session's own topic; returns the reply text exactly as
        `stringsh -c` prints it (`re: …` line first), isError for an `ERROR(CODE)` reply."""
        return await execute(ctx, lambda call: no_bash_mode(request), "string")

    @server.tool(annotations=READ)
    async def grep(pattern: Annotated[str, Field(description="Literal text, or a regex with `regex`")],
                   ctx: Context,
                   path: Annotated[str | None, Field(description="A folder or file to search (default: the "
                                                                 "workspace)")] = None,
                   regex: Annotated[bool, Field(description="Take the pattern as a (safe) regex")] = False,
                   ignoreCase: bool = False,
                   glob: Annotated[str | None, Field(description="Only files whose name (or path below the folder, "
                                                                 "with a `/`) matches, e.g. `*.py`")] = None,
                   context: Annotated[int, Field(ge=0, le=50, description="Lines of context around each match")] = 0,
                   maxResults: Annotated[int | None, Field(ge=1, description="Stop after N matching lines")] = None,
                   ) -> GrepOutput:
        """Search file contents (/grep): `path:line: text` grouped by file, then a count; secrets never searched."""

        def text(call: Call) -> str:
            args: list[Arg] = [flag("--regex")] if regex else []
            args += [flag("-i")] if ignoreCase else []
            args += [flag("--glob"), ("glob", glob)] if glob is not None else []
            args += [flag("-C"), ("context", str(context))] if context else []
            args += [flag("--max"), ("maxResults", str(maxResults))] if maxResults is not None else []
            where = [("path", in_roots(call, path))] if path is not None else []
            if call.allowed is not None and path is None:
                whole_workspace(call, "grep without a path")
            return build("/grep", [*args, flag("--"), ("pattern", pattern), *where])

        return await execute(ctx, text, shape=parsed(replyshapes.grep_lines))

    @server.tool(name="open", annotations=READ_WEB)
    async def open_(target: Annotated[str, Field(description="`path`, `path#block`, `path:L5-L9`, a folder, "
                                                            "`#block` of the open document, or an https:// page")],
                    ctx: Context,
                    fromLine: Annotated[int | None, Field(ge=1, description="First source line to show")] = None,
                    toLine: Annotated[int | None, Field(ge=1, description="Last source line to show")] = None,
                   ) -> OpenOutput:
        """Show a document as an agent should read it, or one `#block` of it (/open); `from`/`to` page a long one."""

        def text(call: Call) -> str:
            args: list[Arg] = [flag("--from"), ("fromLine", str(fromLine))] if fromLine is not None else []
            args += [flag("--to"), ("toLine", str(toLine))] if toLine is not None else []
            return build("/open", [*args, flag("--"), ("target", in_roots(call, target))])

        return await execute(ctx, text, shape=opened)

    @server.tool(annotations=REWRITE)
    async def edit_block(target: Annotated[str, Field(description="`path#block`: a marker block or a heading's id")],
                         body: Annotated[str, Field(description="The block's new content")],
                         ctx: Context) -> ReplyOutput:
        """Replace one block's content (/edit path#block with a body); every byte outside the block is kept
        (encoding, BOM, line endings). Undoable."""

        def text(call: Call) -> str:
            path, _, block = target.partition("#")
            if not path or not block:
                raise StringError("INVALID_TARGET", f"Not a path#block: {target[:200]}",
                                  "Name the file and the block: docs/setup.md#install (open lists a file's blocks).")
            return build("/edit", [flag("--"), ("target", in_roots(call, target))], body)

        return await execute(ctx, text)

    @server.tool(annotations=CHANGE)
    async def replace(target: Annotated[str, Field(description="`path` (old/new text), `path:L5` or `path:L3-L9` "
                                                               "(lines), or `path#block`")],
                      body: Annotated[str, Field(description="For a path: the old text, a line `---`, the new text. "
                                                             "For lines or a block: the new lines")],
                      ctx: Context,
                      all: Annotated[bool, Field(description="Replace every match of the old text")] = False,
                      ) -> ReplyOutput:
        """String's /replace: exact old text (once, or `all`), a range of lines, or a block; line endings,
        encoding and every other byte kept. Undoable."""

        def text(call: Call) -> str:
            args: list[Arg] = [flag("--all")] if all else []
            return build("/replace", [*args, flag("--"), ("target", in_roots(call, target))], body)

        return await execute(ctx, text)

    @server.tool(annotations=CHANGE)
    async def patch(diff: Annotated[str, Field(description="A unified diff (`git diff`, `diff -u`) of one or more "
                                                           "files, paths relative to the workspace root")],
                    ctx: Context) -> ReplyOutput:
        """Apply a multi-file unified diff, all or nothing (/patch): strict, no fuzz; one change set, undoable."""
        return await execute(ctx, lambda call: build("/patch", [], diff), "patch")

    @server.tool(annotations=CHANGE)
    async def apply_patch(input: Annotated[str, Field(description="A patch in Codex's apply_patch format: "
                                                                  "'*** Begin Patch' … '*** End Patch', paths "
                                                                  "relative to the workspace root")],
                          ctx: Context) -> ReplyOutput:
        """Apply a patch in Codex's apply_patch format (`*** Update File:`, `@@` chunks …), all or nothing (/patch):
        exact lines, one change set, undoable."""
        return await execute(ctx, lambda call: build("/patch", [], input), "apply_patch")

    @server.tool(annotations=READ)
    async def changes(ctx: Context,
                      id: Annotated[int | None, Field(ge=1, description="Show this change set as a diff")] = None,
                      n: Annotated[int | None, Field(ge=1, le=1000, description="How many to list (20)")] = None,
                      ) -> ChangesOutput:
        """The change journal, newest first, whoever made the changes (/changes); `id` shows one as a diff."""

        def text(call: Call) -> str:
            if id is not None and n is not None:
                raise StringError("INVALID_PAYLOAD", "Give id or n, not both",
                                  "id shows one change set; n lists that many.")
            if id is not None:
                return build("/changes", [("id", str(id))])
            return build("/changes", [flag("-n"), ("n", str(n))] if n is not None else [])

        return await execute(ctx, text, "changes", parsed(replyshapes.changes))

    @server.tool(annotations=REWRITE)
    async def revert(id: ChangeId, ctx: Context) -> ReplyOutput:
        """Revert one change set by id, whoever made it (/revert); the revert is itself undoable."""
        return await execute(ctx, lambda call: build("/revert", [("id", str(id))]), "revert")

    @server.tool(annotations=CHANGE)
    async def undo(ctx: Context,
                   skip: Annotated[bool, Field(description="Pass over a change that cannot be undone (CONFLICT)")]
                   = False) -> ReplyOutput:
        """Undo this session's last change (/undo in its topic; each call goes one further back): its own changes
        only, never another session's, client's or a person's."""
        return await execute(ctx, lambda call: build("/undo", [flag("--skip")] if skip else []), "undo")

    @server.tool(annotations=ANYTHING)
    async def bash(command: Annotated[str, Field(description="A bash command line or script")],
                   ctx: Context) -> BashOutput:
        """Run a command in this session's persistent bash (`!cmd`): cwd and exports persist between calls, the
        sandbox policy applies, output is redacted. Reply: `exit: N | cwd: /abs`, `---`, the output; a non-zero
        exit is isError (String's EXIT_N) with the same text."""

        def text(call: Call) -> str:
            if not command.strip():
                raise StringError("INVALID_PAYLOAD", "command: empty", "Give the command to run.")
            return shell_request(command)

        return await execute(ctx, text, "bash", parsed(replyshapes.shell))
