"""Folder listings in the reference server's shapes: names, sizes with totals, a JSON tree (the engine's list_tree:
bounded by `maxDepth`, never through a symlink), file info and the allowed folders, each with its structured content
(shaped.py); every look-up through the engine (secrets and engine state left out). Free of the SDK (the stdio
front answers some of these before it is loaded, shortcut.py)."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any

from stringsh.dialects.mcp.shaped import Shaped
from stringsh.errors import StringError
from stringsh.escapes import SURROGATE, json_name, names_as_is, shown_name

if TYPE_CHECKING:
    from stringsh.dialects.mcp.calls import Call
    from stringsh.workspace import TreeEntry

#: A tree stops growing past this many entries (the reference has no bound and overflows clients).
TREE_LIMIT = 20000


def format_size(size: int) -> str:
    """The reference server's size text: `0 B`, `512 B`, `1.50 KB`."""
    if size == 0:
        return "0 B"
    units = ["B", "KB", "MB", "GB", "TB"]
    index = min(math.floor(math.log(size) / math.log(1024)), len(units) - 1)
    return f"{size} B" if index == 0 else f"{size / 1024 ** index:.2f} {units[index]}"


def excluded(rel: str, patterns: list[str]) -> bool:
    """Whether a path relative to the listed folder matches an exclude pattern (by whole path or by name)."""
    name = rel.rsplit("/", 1)[-1]
    for pattern in patterns:
        bare = pattern.removeprefix("**/")
        if fnmatchcase(rel, pattern) or fnmatchcase(name, bare) or fnmatchcase(rel, bare) \
                or fnmatchcase(rel, pattern.rstrip("/") + "/*"):
            return True
    return False


def _child(base: str, name: str) -> str:
    return name if base in ("", ".") else f"{base.rstrip('/')}/{name}"


def _kind(is_dir: bool) -> str:
    return "directory" if is_dir else "file"


def listing(call: Call, path: str) -> Shaped:
    entries = call.ws.list_dir(call.path(path), topic=call.topic)
    names = [entry.name for entry in entries]
    if names_as_is(names):  # the common case, without a look at each name
        return Shaped("\n".join([("[DIR] " if is_dir else "[FILE] ") + name for name, is_dir in entries]),
                      {"entries": [{"name": name, "type": "directory" if is_dir else "file"}
                                   for name, is_dir in entries]}, leaves=" ".join(["file directory", *names]))
    text = "\n".join(f"{'[DIR]' if entry.is_dir else '[FILE]'} {shown_name(entry.name)}" for entry in entries)
    return Shaped(text, {"entries": [{"name": json_name(entry.name), "type": _kind(entry.is_dir)}
                                     for entry in entries]})


def allowed(call: Call) -> Shaped:
    """`list_allowed_directories`: the connection's folders."""
    from stringsh.dialects.mcp.roots import none_allowed

    folders = call.folders()
    if not folders:
        raise none_allowed()
    return Shaped("Allowed directories:\n" + "\n".join(str(folder) for folder in folders),
                  {"directories": [json_name(str(folder)) for folder in folders]})


def list_sized(call: Call, path: str, sort_by: str) -> Shaped:
    checked = call.path(path)
    rows = []
    for entry in call.ws.list_dir(checked, topic=call.topic):
        # a name that is not UTF-8 is listed, but the engine reaches no such path: its size is not known
        reachable = not entry.is_dir and SURROGATE.search(entry.name) is None
        info = call.ws.stat(_child(checked, entry.name)) if reachable else None
        rows.append((entry.name, entry.is_dir, info.size if info is not None else 0))
    if sort_by == "size":
        rows.sort(key=lambda row: row[2], reverse=True)
    lines = [f"{'[DIR]' if is_dir else '[FILE]'} {shown_name(name).ljust(30)} "
             f"{'' if is_dir else (format_size(size) if SURROGATE.search(name) is None else 'unknown').rjust(10)}"
             for name, is_dir, size in rows]
    files = sum(1 for row in rows if not row[1])
    folders = len(rows) - files
    combined = sum(row[2] for row in rows)
    lines += ["", f"Total: {files} files, {folders} directories", f"Combined size: {format_size(combined)}"]
    entries = [{"name": json_name(name), "type": _kind(is_dir),
                "size": None if is_dir or SURROGATE.search(name) else size} for name, is_dir, size in rows]
    return Shaped("\n".join(lines), {"entries": entries, "totalFiles": files, "totalDirectories": folders,
                                     "combinedSize": combined})


def shaped_tree(call: Call, path: str, excludes: list[str], max_depth: int | None) -> Shaped:
    """`directory_tree`: the JSON text (2-space indent, as the reference's) and the same tree as structure."""
    nodes = tree(call, path, excludes, max_depth)
    return Shaped(json.dumps(nodes, indent=2), {"tree": nodes})


def tree(call: Call, path: str, excludes: list[str], max_depth: int | None) -> list[dict[str, Any]]:
    """The engine's folder tree (Workspace.list_tree) in the reference server's JSON shape."""
    found = call.ws.list_tree(call.path(path), max_depth=max_depth, limit=TREE_LIMIT,
                              skip=(lambda rel: excluded(rel, excludes)) if excludes else None)
    if found.over_limit:
        raise StringError("TOO_LARGE", f"More than {TREE_LIMIT} entries below {path}",
                          "Give maxDepth or excludePatterns, or list a smaller folder.")
    return [_node(entry) for entry in found.entries]


def _node(entry: TreeEntry) -> dict[str, Any]:
    if not entry.is_dir:
        return {"name": json_name(entry.name), "type": "file"}
    return {"name": json_name(entry.name), "type": "directory", "children": [_node(child) for child in entry.children]}


def _time(ns: int | None) -> str:
    if ns is None:
        return "unknown"
    return datetime.fromtimestamp(ns / 1e9, tz=UTC).isoformat()


def file_info_text(call: Call, path: str) -> Shaped:
    info = call.ws.stat(call.path(path), topic=call.topic)
    if info is None:
        raise StringError("NOT_FOUND", f"No such file or folder: {path}",
                          "Check the name (list_directory lists a folder).")
    fields = {
        "size": info.size,
        "created": _time(info.birth_ns),
        "modified": _time(info.mtime_ns),
        "accessed": _time(info.atime_ns),
        "isDirectory": str(info.is_dir).lower(),
        "isFile": str(info.kind == "file").lower(),
        "permissions": oct(info.mode & 0o777)[2:],
    }
    text = "\n".join(f"{key}: {value}" for key, value in fields.items())
    times = {key: None if fields[key] == "unknown" else fields[key] for key in ("created", "modified", "accessed")}
    return Shaped(text, {"size": info.size, **times, "isDirectory": info.is_dir, "isFile": info.kind == "file",
                         "permissions": fields["permissions"]})
