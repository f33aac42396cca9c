"""What completion needs from a document: its `#block` ids, `@shortcuts` and `/act` actions.

Computed with the documents' block index (`stringsh.render.index`), the nav shortcuts and the action fence
parser, and cached by content key so repeated Tabs cost nothing. Each piece degrades to empty when its module
is missing from the build.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

#: Files bigger than this are not indexed for completion (the user can still type the id).
MAX_INDEX_CHARS = 2 * 1024 * 1024
CACHE_ENTRIES = 64


@dataclass(frozen=True)
class DocFacts:
    #: Every addressable id in document order: markers, explicit heading ids and heading slugs.
    block_ids: list[str] = field(default_factory=list)
    #: (id, label) of page shortcuts and auto-shortcuts.
    shortcuts: list[tuple[str, str]] = field(default_factory=list)
    #: Action objects (`id`, `method`, `description`, `fields`), in document order.
    actions: list[Any] = field(default_factory=list)
    #: (name, path) of the page's menus.
    menus: list[tuple[str, str]] = field(default_factory=list)


EMPTY = DocFacts()
_cache: dict[Any, DocFacts] = {}
_lock = threading.Lock()


def facts_for(text: str, key: Any = None) -> DocFacts:
    """Facts of a markdown text; `key` (e.g. path, size, mtime) saves hashing the text again."""
    if len(text) > MAX_INDEX_CHARS:
        return EMPTY
    key = key if key is not None else hash(text)
    with _lock:
        cached = _cache.get(key)
    if cached is not None:
        return cached
    index = build(text)
    menus = [(entry[0], entry[1]) for entry in index.menus] if index is not None else []
    facts = DocFacts(block_ids(index), shortcuts(index, text), actions(text), menus)
    with _lock:
        if len(_cache) >= CACHE_ENTRIES:
            _cache.clear()
        _cache[key] = facts
    return facts


def build(text: str) -> Any:
    """The documents' block index of a text, or None when this build has no index."""
    try:
        from stringsh.render.index import build_index
    except ImportError:
        return None
    return build_index(text)


def block_ids(index: Any) -> list[str]:
    if index is None:
        return []
    found = [(open_line, marker_id) for marker_id, open_line, _close in index.markers]
    found += [(line, explicit or slug) for line, _end, _level, _text, explicit, slug in index.headings]
    return [block for block in dict.fromkeys(block for _line, block in sorted(found)) if block]


def shortcuts(index: Any, text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = [(entry[0], entry[1]) for entry in index.shortcuts] if index is not None else []
    try:
        from stringsh.nav.shortcuts import auto_shortcuts

        out += [(name, href) for name, href in auto_shortcuts(text).items()]
    except ImportError:
        pass
    unique: dict[str, str] = {}
    for name, label in out:
        unique.setdefault(name, label)
    return list(unique.items())


def actions(text: str) -> list[Any]:
    if "act." not in text:
        return []
    try:
        from stringsh.actions.fences import parse_actions
    except ImportError:
        return []
    return list(parse_actions(text))
