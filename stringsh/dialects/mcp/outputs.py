"""Each tool's `outputSchema`: the shape of the `structuredContent` a successful call carries (shaped.py builds it),
declared as `Annotated[CallToolResult, Model]` so the SDK publishes the model's JSON schema and checks every
successful result against it (an error result, `isError`, carries none).

Every model starts with `content`, the text block's text exactly, as each of the reference filesystem server's
tools declares it (`{content: string}`), so a client switching from it reads the same field; the fields after it
are the result's structure. docs/mcp.md lists them."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp_types import CallToolResult
from pydantic import BaseModel, Field

Content = Annotated[str, Field(description="The reply's text, exactly as the text content block holds it")]
ChangeId = Annotated[int | None, Field(description="The change set this call made (`changes` shows it, `revert` "
                                                   "takes it back); null when it changed nothing")]
Kind = Annotated[Literal["file", "directory"], Field(description="What the entry is")]
Name = Annotated[str, Field(description="The entry's name: exact, or quoted with `\\xHH` for each byte when it "
                                        "is not UTF-8")]
ShownPath = Annotated[str, Field(description="A workspace path as the text shows it (quoted with `\\xHH` escapes "
                                             "when it is not UTF-8)")]


class TextOut(BaseModel):
    """A result that is text alone."""

    content: Content


class MediaBlock(BaseModel):
    type: Literal["image", "audio"]
    data: str
    mimeType: str


class BlobResource(BaseModel):
    uri: str
    mimeType: str | None = None
    blob: str


class ResourceBlock(BaseModel):
    type: Literal["resource"]
    resource: BlobResource


class MediaOut(BaseModel):
    """The reference server's shape: the content blocks themselves."""

    content: list[MediaBlock | ResourceBlock]


class FileRead(BaseModel):
    path: str = Field(description="The path as given")
    content: str | None = Field(default=None, description="The file's text (masked), when it was read")
    error: str | None = Field(default=None, description="`ERROR(CODE): message` when it was not")


class ReadManyOut(BaseModel):
    content: Content
    files: list[FileRead] = Field(description="One per path, in the order given")


class ChangeOut(BaseModel):
    content: Content
    path: str = Field(description="The path as given")
    changeId: ChangeId


class MoveOut(BaseModel):
    content: Content
    source: str
    destination: str
    changeId: ChangeId


class EditOut(BaseModel):
    content: Content
    path: str = Field(description="The path as given")
    diff: str = Field(description="The git-style unified diff of the edits (masked)")
    dryRun: bool
    changeId: ChangeId


class Entry(BaseModel):
    name: Name
    type: Kind


class ListingOut(BaseModel):
    content: Content
    entries: list[Entry] = Field(description="The folder's entries in the text's order")


class SizedEntry(BaseModel):
    name: Name
    type: Kind
    size: int | None = Field(description="Bytes; null for a folder, or a name that is not UTF-8")


class SizedListingOut(BaseModel):
    content: Content
    entries: list[SizedEntry] = Field(description="In the text's order (by name, or by size largest first)")
    totalFiles: int
    totalDirectories: int
    combinedSize: int = Field(description="Bytes of the files listed")


class TreeNode(BaseModel):
    name: Name
    type: Kind
    children: list[TreeNode] | None = Field(default=None, description="A folder's entries (files have none)")


class TreeOut(BaseModel):
    content: Content
    tree: list[TreeNode] = Field(description="The JSON the text holds, as structure")


class SearchOut(BaseModel):
    content: Content
    matches: list[str] = Field(description="Absolute paths, sorted")
    truncated: bool = Field(description="Whether the search stopped at its limit")
    notShown: int = Field(description="Matches past the limit, not listed")


class FileInfoOut(BaseModel):
    content: Content
    size: int
    created: str | None = Field(description="ISO 8601 UTC, null where the file system keeps none")
    modified: str | None
    accessed: str | None
    isDirectory: bool
    isFile: bool
    permissions: str = Field(description="Octal, e.g. `644`")


class AllowedOut(BaseModel):
    content: Content
    directories: list[str] = Field(description="Absolute folders; a relative path is relative to the first")


class ReplyOut(BaseModel):
    """A String Command's reply."""

    content: Content
    changeId: ChangeId


class OpenOut(BaseModel):
    content: Content
    path: str | None = Field(default=None, description="The document's workspace path (none for a web page)")
    block: str | None = Field(default=None, description="The block or symbol id shown, when one was named")


class GrepLine(BaseModel):
    path: ShownPath
    line: int
    text: str = Field(description="The line (masked)")
    match: bool = Field(description="A matching line, or one of its context lines")


class GrepOut(BaseModel):
    content: Content
    lines: list[GrepLine] = Field(description="Matching and context lines in the text's order")
    matches: int = Field(description="How many matching lines are listed")


class SymbolRow(BaseModel):
    handle: str = Field(description="`@s1`: what `open @s1` takes in this session")
    path: ShownPath
    startLine: int
    endLine: int
    kind: str = Field(description="function, class, method, …")
    id: str = Field(description="The qualified id, e.g. `Parser.parse`")
    target: str = Field(description="`path#id`, what view_symbol and replace_symbol take")


class SymbolsOut(BaseModel):
    content: Content
    symbols: list[SymbolRow]


class ReferenceRow(BaseModel):
    path: ShownPath
    line: int
    column: int
    role: str = Field(description="definition, local, parameter, import, qualified, member or use")
    container: str | None = Field(description="The id of the enclosing definition; null at top level")
    text: str = Field(description="The line, trimmed (masked)")


class ReferencesOut(BaseModel):
    content: Content
    references: list[ReferenceRow]


class DefinitionRow(BaseModel):
    path: ShownPath
    line: int
    column: int
    kind: str
    id: str
    target: str = Field(description="`path#id`, what view_symbol takes")


class DefinitionOut(BaseModel):
    content: Content
    definitions: list[DefinitionRow]


class ChangeRow(BaseModel):
    id: int
    time: str = Field(description="Local time, `YYYY-MM-DD HH:MM:SS`")
    topic: str = Field(description="The topic (session) that made it")
    summary: str = Field(description="The request and the files it changed, as the text's row says")


class ChangesOut(BaseModel):
    content: Content
    changes: list[ChangeRow] | None = Field(default=None, description="The listed change sets, newest first "
                                                                      "(absent when `id` shows one as a diff)")


class BashOut(BaseModel):
    content: Content
    exitCode: int
    cwd: str = Field(description="The shell's working folder after the command")
    output: str = Field(description="What the command printed (masked; empty for none)")


TextOutput = Annotated[CallToolResult, TextOut]
MediaOutput = Annotated[CallToolResult, MediaOut]
ReadManyOutput = Annotated[CallToolResult, ReadManyOut]
ChangeOutput = Annotated[CallToolResult, ChangeOut]
MoveOutput = Annotated[CallToolResult, MoveOut]
EditOutput = Annotated[CallToolResult, EditOut]
ListingOutput = Annotated[CallToolResult, ListingOut]
SizedListingOutput = Annotated[CallToolResult, SizedListingOut]
TreeOutput = Annotated[CallToolResult, TreeOut]
SearchOutput = Annotated[CallToolResult, SearchOut]
FileInfoOutput = Annotated[CallToolResult, FileInfoOut]
AllowedOutput = Annotated[CallToolResult, AllowedOut]
ReplyOutput = Annotated[CallToolResult, ReplyOut]
OpenOutput = Annotated[CallToolResult, OpenOut]
GrepOutput = Annotated[CallToolResult, GrepOut]
SymbolsOutput = Annotated[CallToolResult, SymbolsOut]
ReferencesOutput = Annotated[CallToolResult, ReferencesOut]
DefinitionOutput = Annotated[CallToolResult, DefinitionOut]
ChangesOutput = Annotated[CallToolResult, ChangesOut]
BashOutput = Annotated[CallToolResult, BashOut]


def media_structure(result: CallToolResult) -> CallToolResult:
    """`read_media_file`'s structured content: its content blocks, as the reference server gives them, once they
    passed the secret check (masking.py)."""
    if not result.is_error:
        blocks: list[Any] = [block.model_dump(mode="json", by_alias=True, exclude_none=True)
                             for block in result.content]
        result.structured_content = {"content": blocks}
    return result
