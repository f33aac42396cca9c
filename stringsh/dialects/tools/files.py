"""`read`, `write` and `edit`: the engine's reads and change sets (journal, undo, audit), shaped as docs/json-tools.md.

They follow the README's text fidelity table, as every dialect does. `read` shows lines with `\\n` (never a `\\r`),
a file that is not UTF-8 as Latin-1 or detected cp1252 (one character per byte). `write` replaces the whole content:
a new file gets the content's UTF-8 bytes as given, an existing one keeps its encoding, BOM and dominant line
ending. `edit` is the engine's exact-replace editor: `old_string` as `read` showed it (`\\n`) matches a CRLF or
mixed file too, `new_string` takes the line ending of the text it replaces, and the file keeps its encoding and BOM;
one journalled change guarded by the hash of the bytes it was read as.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from stringsh.dialects.tools.paths import engine_path
from stringsh.dialects.tools.schema import Field, args_error
from stringsh.errors import StringError, is_a_folder
from stringsh.escapes import shown_name
from stringsh.hints import NOT_UTF8

if TYPE_CHECKING:
    from stringsh.workspace import FileInfo, Workspace

READ_FIELDS = (Field("file_path", "string", required=True), Field("offset", "integer", minimum=1),
               Field("limit", "integer", minimum=1))
WRITE_FIELDS = (Field("file_path", "string", required=True), Field("content", "string", required=True))
EDIT_FIELDS = (Field("file_path", "string", required=True), Field("old_string", "string", required=True),
               Field("new_string", "string", required=True), Field("replace_all", "boolean"))

#: What each tool does, as the tool list says it (the README's text fidelity table in one line each).
READ_ABOUT = "a file's numbered lines, each ending shown as \\n (never a \\r), or a folder listing"
WRITE_ABOUT = "replace or create a file (parents made); an existing file keeps its encoding, BOM and line ending"
EDIT_ABOUT = ("replace an exact string in a file: old_string as read shows it (\\n) matches CRLF lines too, and "
              "new_string takes the file's line ending")
#: The edit errors of the JSON tools' published protocol (and OpenCode's), verbatim.
NOT_FOUND_TEXT = "oldString not found in content"
MULTIPLE_TEXT = ("Found multiple matches for oldString. Provide more surrounding lines in oldString to identify the "
                 "correct match.")
OVERLAP_TEXT = "Found overlapping matches for oldString; replace_all cannot replace each of them."


def path_summary(args: dict[str, Any]) -> tuple[list[str], str | None]:
    return [str(args.get("file_path", ""))], None


def not_found(path: str) -> StringError:
    return StringError("NOT_FOUND", f"file not found: {path}")


def _stat(ws: Workspace, path: str, given: str, topic: str) -> FileInfo:
    info = ws.stat(path, topic=topic)
    if info is None:
        refused = ws.not_found(path, given)
        if refused.hint is not None and refused.hint.startswith(NOT_UTF8):  # a name not UTF-8, typed back escaped
            raise StringError("NOT_FOUND", not_found(given).message, refused.advice)
        raise not_found(given)
    return info


def read(ws: Workspace, args: dict[str, Any], topic: str) -> dict[str, Any]:
    from stringsh.workspace import split_lines

    given = args["file_path"]
    path = engine_path(given)
    info = _stat(ws, path, given, topic)
    offset, limit = args.get("offset", 1), args.get("limit")
    if info.is_dir:
        names = [f"{shown_name(e.name)}/" if e.is_dir else shown_name(e.name) for e in ws.list_dir(path, topic=topic)]
        return {"content": "\n".join(_window(names, offset, limit)), "is_dir": True, "total_lines": len(names),
                "file_size": 0, "is_binary": False}
    try:
        text = ws.read_text(path, topic=topic, legacy=True)
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
    given, content = args["file_path"], args["content"]
    path = engine_path(given)
    try:
        content.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (\ud800) in the JSON string
        raise args_error("write: 'content' holds a character UTF-8 cannot encode (a lone surrogate).") from None
    outcome = ws.write_text(path, content, topic=topic)
    return {"success": True, "file_path": given, "change_id": int(outcome.change_id)}


def edit(ws: Workspace, args: dict[str, Any], topic: str) -> dict[str, Any]:
    from stringsh.workspace import ReplaceRefused as Refused

    given, old, new = args["file_path"], args["old_string"], args["new_string"]
    if not old:
        raise args_error("edit: 'old_string' must not be empty.", "Use write to create or replace a whole file.")
    if old == new:
        raise args_error("edit: 'old_string' and 'new_string' are the same.")
    path = engine_path(given)
    info = _stat(ws, path, given, topic)
    if info.is_dir:
        raise is_a_folder(given, "read lists a folder; edit changes one file.")
    try:
        done = ws.replace(path, ((old, new),), mode="all" if args.get("replace_all", False) else "one", topic=topic)
    except Refused as exc:
        if exc.kind == "not_found":
            raise StringError("NO_MATCH", NOT_FOUND_TEXT, "Read the file again and copy old_string exactly.") from None
        if exc.kind == "ambiguous":
            raise StringError("MULTIPLE_MATCHES", MULTIPLE_TEXT,
                              "Or set replace_all to true to replace every match.") from None
        raise StringError("MULTIPLE_MATCHES", OVERLAP_TEXT, "Provide more surrounding lines in old_string.") from None
    lines = max(old.count("\n"), new.count("\n")) + 1
    return {"success": True, "lines_changed": lines * done.count, "replacements": done.count,
            "change_id": int(done.change_id)}
