"""The reference filesystem server's tools (@modelcontextprotocol/server-filesystem), by its names and argument
names so a client can switch, each on the engine: reads show every line ending as `\\n` (docs/text-fidelity.md's
table; edits match it in a CRLF file too), a file that is not UTF-8 as Latin-1, and are redacted on
the way out, writes keep encoding, BOM and line endings and are journalled (undoable), secrets are refused, and
paths are confined by the engine (absolute paths inside a root are accepted, others refused)."""

from __future__ import annotations

import base64
import json
import mimetypes
from typing import TYPE_CHECKING, Annotated, Literal

from mcp.server.mcpserver import Context
from mcp_types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    ToolAnnotations,
)
from pydantic import BaseModel, Field

from stringsh.dialects.mcp.calls import Call, Calls
from stringsh.dialects.mcp.listing import allowed, file_info_text, list_sized, listing, tree
from stringsh.dialects.mcp.reading import read_text
from stringsh.dialects.mcp.textedit import EditOperation, apply_edits
from stringsh.errors import StringError
from stringsh.escapes import shown_name

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
CREATE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
CHANGE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=False)
OVERWRITE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False)

Path_ = Annotated[str, Field(description="A file or folder: absolute inside an allowed directory, or relative "
                                         "to the first one")]
Head = Annotated[int | None, Field(default=None, ge=0, description="Only the first N lines")]
Tail = Annotated[int | None, Field(default=None, ge=0, description="Only the last N lines")]
Excludes = Annotated[list[str], Field(default_factory=list, description="Glob patterns of paths to leave out")]


class Edit(BaseModel):
    """One replacement: `oldText` must match exactly one place in the file."""

    oldText: str = Field(description="Text to search for; must match exactly one place")
    newText: str = Field(description="Text to replace it with")


def media(call: Call, path: str) -> list[ContentBlock]:
    """The file as base64 data; bytes holding a secret are refused as the result is masked (masking.py)."""
    checked = call.path(path)
    data = call.ws.read_bytes(checked, topic=call.topic)
    mime = mimetypes.guess_type(path)[0] or "application/octet-stream"
    encoded = base64.b64encode(data).decode("ascii")
    if mime.startswith("image/"):
        return [ImageContent(type="image", data=encoded, mime_type=mime)]
    if mime.startswith("audio/"):
        return [AudioContent(type="audio", data=encoded, mime_type=mime)]
    uri = call.location(checked).as_uri()
    return [EmbeddedResource(type="resource", resource=BlobResourceContents(uri=uri, mime_type=mime, blob=encoded))]


def read_many(call: Call, paths: list[str]) -> str:
    parts = []
    for path in paths:
        try:
            # each file masked on its own: a key block cut off at one file's end must not hide the next file
            parts.append(f"{shown_name(path)}:\n{call.ws.redact_lines(read_text(call, path, None, None))}\n")
        except StringError as exc:  # one failure does not abort the rest, as in the reference server
            parts.append(f"{shown_name(path)}: ERROR({exc.code}): {exc.message}")
    return "\n---\n".join(parts)


def write(call: Call, path: str, content: str) -> str:
    outcome = call.ws.write_text(call.path(path), content, topic=call.topic)
    return f"Successfully wrote to {path} (change {outcome.change_id}, undoable)"


def mkdir(call: Call, path: str) -> str:
    outcome = call.ws.mkdir(call.path(path), create_parents=True, ignore_existing=True, topic=call.topic)
    change = "" if outcome.change_id is None else f" (change {outcome.change_id}, undoable)"
    return f"Successfully created directory {path}{change}"


def move(call: Call, source: str, destination: str) -> str:
    target = call.path(destination)
    if call.ws.stat(target, follow=False) is not None:
        raise StringError("CONFLICT", f"Destination already exists: {destination}",
                          "Name a destination that does not exist yet (move_file never overwrites).")
    outcome = call.ws.move(call.path(source), target, topic=call.topic)
    return f"Successfully moved {source} to {destination} (change {outcome.change_id}, undoable)"


def search(call: Call, path: str, pattern: str, excludes: list[str]) -> str:
    from stringsh.dialects.mcp.listing import excluded

    found = call.ws.glob(pattern, call.path(path), topic=call.topic)
    cut = 0 if found.path == "." else len(found.path) + 1
    paths = [shown_name(shown) for shown in sorted(str(call.absolute(match.rel)) for match in found.matches
                                                    if not excluded(match.rel[cut:], excludes))]
    hidden = found.total - len(found.matches)
    more = f"\n({hidden} more matches not shown: narrow the pattern)" if found.truncated else ""
    return "\n".join(paths) + more if paths else "No matches found"


def register(server: MCPServer, calls: Calls) -> None:
    """Add the reference server's tools to `server`."""

    @server.tool(annotations=READ)
    async def read_text_file(path: Path_, ctx: Context, head: Head = None, tail: Tail = None) -> CallToolResult:
        """Read a text file (UTF-8, UTF-16 with BOM), its own line endings kept; `head` or `tail` N lines."""
        return await calls.run(ctx, lambda call: read_text(call, path, head, tail))

    @server.tool(annotations=READ)
    async def read_media_file(path: Path_, ctx: Context) -> CallToolResult:
        """Read an image or audio file (or any file) as base64 data with its MIME type."""
        return await calls.run(ctx, lambda call: media(call, path))

    @server.tool(annotations=READ)
    async def read_multiple_files(paths: list[str], ctx: Context) -> CallToolResult:
        """Read several text files at once; one that fails is reported in its place, the rest are read."""
        return await calls.run(ctx, lambda call: read_many(call, paths))

    @server.tool(annotations=OVERWRITE)
    async def write_file(path: Path_, content: str, ctx: Context) -> CallToolResult:
        """Create or overwrite a file; an existing file keeps its encoding, BOM and line endings. Undoable."""
        return await calls.run(ctx, lambda call: write(call, path, content))

    @server.tool(annotations=CHANGE)
    async def edit_file(path: Path_, edits: list[Edit], ctx: Context, dryRun: bool = False) -> CallToolResult:
        """Replace exact text: each `oldText` must match one place. Returns a git-style diff; `dryRun` only
        shows it. Line endings, encoding and BOM are kept; all edits apply or none. Undoable."""
        operations = [EditOperation(edit.oldText, edit.newText) for edit in edits]
        return await calls.run(ctx, lambda call: apply_edits(call, path, operations, dry_run=dryRun))

    @server.tool(annotations=CREATE)
    async def create_directory(path: Path_, ctx: Context) -> CallToolResult:
        """Create a folder and any missing parents; an existing folder is fine."""
        return await calls.run(ctx, lambda call: mkdir(call, path))

    @server.tool(annotations=READ)
    async def list_directory(path: Path_, ctx: Context) -> CallToolResult:
        """List a folder: `[DIR] name` and `[FILE] name` lines (secrets and engine state left out)."""
        return await calls.run(ctx, lambda call: listing(call, path))

    @server.tool(annotations=READ)
    async def list_directory_with_sizes(path: Path_, ctx: Context,
                                        sortBy: Literal["name", "size"] = "name") -> CallToolResult:
        """List a folder with file sizes, sorted by name or size, with totals."""
        return await calls.run(ctx, lambda call: list_sized(call, path, sortBy))

    @server.tool(annotations=READ)
    async def directory_tree(path: Path_, ctx: Context, excludePatterns: Excludes,
                             maxDepth: Annotated[int | None, Field(default=None, ge=1)] = None
                             ) -> CallToolResult:
        """A folder's tree as JSON ({name, type, children}); `maxDepth` bounds it (symlinks are not followed)."""
        return await calls.run(ctx, lambda call: json.dumps(tree(call, path, excludePatterns, maxDepth), indent=2))

    @server.tool(annotations=CHANGE)
    async def move_file(source: Path_, destination: Path_, ctx: Context) -> CallToolResult:
        """Move or rename a file or folder; refused when the destination exists. Undoable."""
        return await calls.run(ctx, lambda call: move(call, source, destination))

    @server.tool(annotations=READ)
    async def search_files(path: Path_, pattern: str, ctx: Context, excludePatterns: Excludes) -> CallToolResult:
        """Files below `path` whose path relative to it matches the glob `pattern` (`**/*.py`, `*.md`)."""
        return await calls.run(ctx, lambda call: search(call, path, pattern, excludePatterns))

    @server.tool(annotations=READ)
    async def get_file_info(path: Path_, ctx: Context) -> CallToolResult:
        """Size, times, type and permissions of a file or folder."""
        return await calls.run(ctx, lambda call: file_info_text(call, path))

    @server.tool(annotations=READ)
    async def list_allowed_directories(ctx: Context) -> CallToolResult:
        """The folders this server may use: the policy's roots, narrowed by the client's roots when it offers any."""
        return await calls.run(ctx, allowed)
