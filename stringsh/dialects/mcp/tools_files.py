"""The reference filesystem server's tools (@modelcontextprotocol/server-filesystem), by its names and argument
names so a client can switch, each on the engine: reads show every line ending as `\\n` (docs/text-fidelity.md's
table; edits match it in a CRLF file too), a file that is not UTF-8 as Latin-1, and are redacted on
the way out, writes keep encoding, BOM and line endings and are journalled (undoable), secrets are refused, and
paths are confined by the engine (absolute paths inside a root are accepted, others refused)."""

from __future__ import annotations

import base64
import mimetypes
from typing import TYPE_CHECKING, Annotated, Literal

from mcp.server.mcpserver import Context
from mcp_types import (
    AudioContent,
    BlobResourceContents,
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    ToolAnnotations,
)
from pydantic import BaseModel, Field

from stringsh.dialects.mcp.calls import Call, Calls
from stringsh.dialects.mcp.listing import allowed, file_info_text, list_sized, listing, shaped_tree
from stringsh.dialects.mcp.outputs import (
    AllowedOutput,
    ChangeOutput,
    EditOutput,
    FileInfoOutput,
    ListingOutput,
    MediaOutput,
    MoveOutput,
    ReadManyOutput,
    SearchOutput,
    SizedListingOutput,
    TextOutput,
    TreeOutput,
    media_structure,
)
from stringsh.dialects.mcp.reading import read_text
from stringsh.dialects.mcp.shaped import Shaped
from stringsh.dialects.mcp.textedit import EditOperation, apply_edits
from stringsh.errors import StringError
from stringsh.escapes import json_name, shown_name

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


def read_many(call: Call, paths: list[str]) -> Shaped:
    parts, files = [], []
    for path in paths:
        try:
            # each file masked on its own: a key block cut off at one file's end must not hide the next file
            text = call.ws.redact_lines(read_text(call, path, None, None))
            parts.append(f"{shown_name(path)}:\n{text}\n")
            files.append({"path": path, "content": text})
        except StringError as exc:  # one failure does not abort the rest, as in the reference server
            parts.append(f"{shown_name(path)}: ERROR({exc.code}): {exc.message}")
            files.append({"path": path, "error": f"ERROR({exc.code}): {exc.message}"})
    return Shaped("\n---\n".join(parts), {"files": files})


def write(call: Call, path: str, content: str) -> Shaped:
    outcome = call.ws.write_text(call.path(path), content, topic=call.topic)
    return Shaped(f"Successfully wrote to {path} (change {outcome.change_id}, undoable)",
                  {"path": path, "changeId": outcome.change_id})


def mkdir(call: Call, path: str) -> Shaped:
    outcome = call.ws.mkdir(call.path(path), create_parents=True, ignore_existing=True, topic=call.topic)
    change = "" if outcome.change_id is None else f" (change {outcome.change_id}, undoable)"
    return Shaped(f"Successfully created directory {path}{change}", {"path": path, "changeId": outcome.change_id})


def move(call: Call, source: str, destination: str) -> Shaped:
    target = call.path(destination)
    if call.ws.stat(target, follow=False) is not None:
        raise StringError("CONFLICT", f"Destination already exists: {destination}",
                          "Name a destination that does not exist yet (move_file never overwrites).")
    outcome = call.ws.move(call.path(source), target, topic=call.topic)
    return Shaped(f"Successfully moved {source} to {destination} (change {outcome.change_id}, undoable)",
                  {"source": source, "destination": destination, "changeId": outcome.change_id})


def search(call: Call, path: str, pattern: str, excludes: list[str]) -> Shaped:
    from stringsh.dialects.mcp.listing import excluded

    found = call.ws.glob(pattern, call.path(path), topic=call.topic)
    cut = 0 if found.path == "." else len(found.path) + 1
    names = sorted(str(call.absolute(match.rel)) for match in found.matches
                   if not excluded(match.rel[cut:], excludes))
    paths = [shown_name(name) for name in names]
    hidden = found.total - len(found.matches)
    more = f"\n({hidden} more matches not shown: narrow the pattern)" if found.truncated else ""
    fields = {"matches": [json_name(name) for name in names], "truncated": found.truncated,
              "notShown": hidden if found.truncated else 0}
    return Shaped("\n".join(paths) + more if paths else "No matches found", fields)


def register(server: MCPServer, calls: Calls) -> None:
    """Add the reference server's tools to `server`."""

    @server.tool(annotations=READ)
    async def read_text_file(path: Path_, ctx: Context, head: Head = None, tail: Tail = None) -> TextOutput:
        """Read a text file (UTF-8, UTF-16 with BOM), its own line endings kept; `head` or `tail` N lines."""
        return await calls.run(ctx, lambda call: Shaped(read_text(call, path, head, tail)))

    @server.tool(annotations=READ)
    async def read_media_file(path: Path_, ctx: Context) -> MediaOutput:
        """Read an image or audio file (or any file) as base64 data with its MIME type."""
        return media_structure(await calls.run(ctx, lambda call: media(call, path)))

    @server.tool(annotations=READ)
    async def read_multiple_files(paths: list[str], ctx: Context) -> ReadManyOutput:
        """Read several text files at once; one that fails is reported in its place, the rest are read."""
        return await calls.run(ctx, lambda call: read_many(call, paths))

    @server.tool(annotations=OVERWRITE)
    async def write_file(path: Path_, content: str, ctx: Context) -> ChangeOutput:
        """Create or overwrite a file; an existing file keeps its encoding, BOM and line endings. Undoable."""
        return await calls.run(ctx, lambda call: write(call, path, content))

    @server.tool(annotations=CHANGE)
    async def edit_file(path: Path_, edits: list[Edit], ctx: Context, dryRun: bool = False) -> EditOutput:
        """Replace exact text: each `oldText` must match one place. Returns a git-style diff; `dryRun` only
        shows it. Line endings, encoding and BOM are kept; all edits apply or none. Undoable."""
        operations = [EditOperation(edit.oldText, edit.newText) for edit in edits]
        return await calls.run(ctx, lambda call: apply_edits(call, path, operations, dry_run=dryRun))

    @server.tool(annotations=CREATE)
    async def create_directory(path: Path_, ctx: Context) -> ChangeOutput:
        """Create a folder and any missing parents; an existing folder is fine."""
        return await calls.run(ctx, lambda call: mkdir(call, path))

    @server.tool(annotations=READ)
    async def list_directory(path: Path_, ctx: Context) -> ListingOutput:
        """List a folder: `[DIR] name` and `[FILE] name` lines (secrets and engine state left out)."""
        return await calls.run(ctx, lambda call: listing(call, path))

    @server.tool(annotations=READ)
    async def list_directory_with_sizes(path: Path_, ctx: Context,
                                        sortBy: Literal["name", "size"] = "name") -> SizedListingOutput:
        """List a folder with file sizes, sorted by name or size, with totals."""
        return await calls.run(ctx, lambda call: list_sized(call, path, sortBy))

    @server.tool(annotations=READ)
    async def directory_tree(path: Path_, ctx: Context, excludePatterns: Excludes,
                             maxDepth: Annotated[int | None, Field(default=None, ge=1)] = None
                             ) -> TreeOutput:
        """A folder's tree as JSON ({name, type, children}); `maxDepth` bounds it (symlinks are not followed)."""
        return await calls.run(ctx, lambda call: shaped_tree(call, path, excludePatterns, maxDepth))

    @server.tool(annotations=CHANGE)
    async def move_file(source: Path_, destination: Path_, ctx: Context) -> MoveOutput:
        """Move or rename a file or folder; refused when the destination exists. Undoable."""
        return await calls.run(ctx, lambda call: move(call, source, destination))

    @server.tool(annotations=READ)
    async def search_files(path: Path_, pattern: str, ctx: Context, excludePatterns: Excludes) -> SearchOutput:
        """Files below `path` whose path relative to it matches the glob `pattern` (`**/*.py`, `*.md`), sorted;
        past the result limit, the first by path."""
        return await calls.run(ctx, lambda call: search(call, path, pattern, excludePatterns))

    @server.tool(annotations=READ)
    async def get_file_info(path: Path_, ctx: Context) -> FileInfoOutput:
        """Size, times, type and permissions of a file or folder."""
        return await calls.run(ctx, lambda call: file_info_text(call, path))

    @server.tool(annotations=READ)
    async def list_allowed_directories(ctx: Context) -> AllowedOutput:
        """The folders this server may use: the policy's roots, narrowed by the client's roots when it offers any."""
        return await calls.run(ctx, allowed)
