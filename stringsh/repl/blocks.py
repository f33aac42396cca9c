"""`#block` ids of a file for completion: the documents' block index when this build has it, else markers and
heading ids/slugs from the shared scanner. Cached by (path, size, mtime) so repeated Tabs cost nothing.
"""

from __future__ import annotations

import re
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from stringsh.repl.sources import Sources

#: Files bigger than this are not indexed for completion (the user can still type the id).
MAX_INDEX_BYTES = 2 * 1024 * 1024
MARKER = re.compile(r"^\s*<!--\s*#([A-Za-z0-9_-]+)\s*-->\s*$")

_cache: dict[tuple[str, int, int], list[str]] = {}
_lock = threading.Lock()


def block_ids_of_file(sources: Sources, path: str) -> list[str]:
    """Block ids of a workspace file, in document order; [] when it is not a readable text document."""
    text_and_key = read_text(sources, path)
    if text_and_key is None:
        return []
    text, key = text_and_key
    with _lock:
        if key in _cache:
            return _cache[key]
    ids = index_ids(text)
    with _lock:
        if len(_cache) > 64:
            _cache.clear()
        _cache[key] = ids
    return ids


def read_text(sources: Sources, path: str) -> tuple[str, tuple[str, int, int]] | None:
    """The file's text under the engine's rules when the engine is present, else a confined plain read."""
    workspace = sources.workspace()
    reader = getattr(workspace, "read_text", None) if workspace is not None else None
    if reader is not None:
        try:
            got = reader(path)
        except Exception:
            return None
        text = getattr(got, "text", got)
        if not isinstance(text, str) or len(text) > MAX_INDEX_BYTES:
            return None
        return text, (path, len(text), hash(text))
    parts = [part for part in path.split("/") if part and part != "."]
    if not parts or path.startswith("/") or ".." in parts or sources._denied("/".join(parts)):
        return None
    if ".stringsh" in parts:
        return None
    full = sources.root.joinpath(*parts)
    try:
        if not sources._inside(str(full)):
            return None
        stat = full.stat()
        if not full.is_file() or stat.st_size > MAX_INDEX_BYTES:
            return None
        data = full.read_bytes()
    except OSError:
        return None
    if b"\x00" in data[:8192]:
        return None
    return data.decode("utf-8", "replace"), (path, stat.st_size, stat.st_mtime_ns)


def index_ids(text: str) -> list[str]:
    """Ids from the documents' public index if present; otherwise markers, then heading ids and slugs."""
    ids = _from_render_index(text)
    if ids is not None:
        return ids
    from stringsh.render.scan import scan
    from stringsh.render.slug import explicit_heading_id, heading_slug_text, string_slug

    lines = text.split("\n")
    found: list[tuple[int, str]] = []
    for number, line in enumerate(lines):
        match = MARKER.match(line)
        if match:
            found.append((number, match.group(1)))
    for start, _end, _level, heading in scan(lines).headings:
        explicit = explicit_heading_id(lines[start])
        found.append((start, explicit or string_slug(heading_slug_text(lines[start].strip(), heading))))
    return [block for block in dict.fromkeys(block for _line, block in sorted(found)) if block]


def _from_render_index(text: str) -> list[str] | None:
    """Ask the documents' block index (module `stringsh.render.index`) when it has landed."""
    try:
        from stringsh.render import index as render_index
    except ImportError:
        return None
    build: Any = getattr(render_index, "build_index", None) or getattr(render_index, "index_document", None)
    if build is None:
        return None
    try:
        built = build(text)
    except Exception:
        return None
    from stringsh.repl.sources import first_attr, names_of

    ids = names_of(first_attr(built, ("block_ids", "blocks", "ids")))
    return ids or None
