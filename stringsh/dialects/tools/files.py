"""`read`, `write` and `edit`: the engine's reads and change sets (journal, undo, audit), in seed 001's shapes.

`write` stores the content's UTF-8 bytes exactly as given (seed 001: it replaces the entire content); `edit`
matches `old_string` exactly in the file's decoded text (its own line endings) and writes it back in its own
encoding and BOM, guarded by the sha256 it read (a file changed meanwhile is a CONFLICT, nothing written).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from stringsh.dialects.tools.paths import engine_path
from stringsh.dialects.tools.schema import Field, args_error
from stringsh.errors import StringError, is_a_folder

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace
    from stringsh.workspace.ops.stat import FileInfo

READ_FIELDS = (Field("file_path", "string", required=True), Field("offset", "integer", minimum=1),
               Field("limit", "integer", minimum=1))
WRITE_FIELDS = (Field("file_path", "string", required=True), Field("content", "string", required=True))
EDIT_FIELDS = (Field("file_path", "string", required=True), Field("old_string", "string", required=True),
               Field("new_string", "string", required=True), Field("replace_all", "boolean"))

#: Seed 001's (and OpenCode's) edit errors, verbatim.
NOT_FOUND_TEXT = "oldString not found in content"
MULTIPLE_TEXT = ("Found multiple matches for oldString. Provide more surrounding lines in oldString to identify the "
                 "correct match.")


def path_summary(args: dict[str, Any]) -> tuple[list[str], str | None]:
    return [str(args.get("file_path", ""))], None


def not_found(path: str) -> StringError:
    return StringError("NOT_FOUND", f"file not found: {path}")


def _stat(ws: Workspace, path: str, given: str, topic: str) -> FileInfo:
    info = ws.stat(path, topic=topic)
    if info is None:
        raise not_found(given)
    return info


def read(ws: Workspace, args: dict[str, Any], topic: str) -> dict[str, Any]:
    from stringsh.workspace.textio import split_lines

    given = args["file_path"]
    path = engine_path(given)
    info = _stat(ws, path, given, topic)
    offset, limit = args.get("offset", 1), args.get("limit")
    if info.is_dir:
        names = [f"{e.name}/" if e.is_dir else e.name for e in ws.list_dir(path, topic=topic)]
        return {"content": "\n".join(_window(names, offset, limit)), "is_dir": True, "total_lines": len(names),
                "file_size": 0, "is_binary": False}
    try:
        text = ws.read_text(path, topic=topic)
    except StringError as exc:
        if exc.code != "BINARY_FILE":
            raise
        return {"content": "", "is_dir": False, "total_lines": 0, "file_size": info.size, "is_binary": True,
                "file_type": _file_type(info.rel)}
    lines = split_lines(ws.redact_lines(text.text))
    if offset > max(len(lines), 1):
        raise args_error(f"read: offset {offset} is past the end of {given} ({len(lines)} lines).")
    numbered = [f"{number}: {line}" for number, line in enumerate(_window(lines, offset, limit), offset)]
    return {"content": "\n".join(numbered), "is_dir": False, "total_lines": len(lines),
            "file_size": text.size, "is_binary": False}


def _window(lines: list[str], offset: int, limit: int | None) -> list[str]:
    return lines[offset - 1 : None if limit is None else offset - 1 + limit]


def _file_type(rel: str) -> str:
    import mimetypes

    kind, _ = mimetypes.guess_type(rel, strict=False)
    return kind or "application/octet-stream"


def write(ws: Workspace, args: dict[str, Any], topic: str) -> dict[str, Any]:
    from stringsh.workspace.models import ChangeSet, FileChange

    given, content = args["file_path"], args["content"]
    path = engine_path(given)
    try:
        data = content.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (\ud800) in the JSON string
        raise args_error("write: 'content' holds a character UTF-8 cannot encode (a lone surrogate).") from None
    ws.apply(ChangeSet([FileChange(path, data)]), topic=topic)
    return {"success": True, "file_path": given}


def edit(ws: Workspace, args: dict[str, Any], topic: str) -> dict[str, Any]:
    from stringsh.workspace.models import ChangeSet, FileChange
    from stringsh.workspace.textio import encode

    given, old, new = args["file_path"], args["old_string"], args["new_string"]
    if not old:
        raise args_error("edit: 'old_string' must not be empty.", "Use write to create or replace a whole file.")
    if old == new:
        raise args_error("edit: 'old_string' and 'new_string' are the same.")
    path = engine_path(given)
    info = _stat(ws, path, given, topic)
    if info.is_dir:
        raise is_a_folder(given, "read lists a folder; edit changes one file.")
    current = ws.read_text(path, topic=topic)
    count = current.text.count(old)
    if count == 0:
        raise StringError("NO_MATCH", NOT_FOUND_TEXT, "Read the file again and copy old_string exactly.")
    if count > 1 and not args.get("replace_all", False):
        raise StringError("MULTIPLE_MATCHES", MULTIPLE_TEXT, "Or set replace_all to true to replace every match.")
    text = current.text.replace(old, new)
    data = encode(text, current.encoding, current.bom, current.rel)
    ws.apply(ChangeSet([FileChange(path, data, current.sha256)]), topic=topic, op="edit")
    lines = max(old.count("\n"), new.count("\n")) + 1
    return {"success": True, "lines_changed": lines * count, "replacements": count}
