"""`/map` (and every dialect's repository map): the workspace's most referenced definitions, ranked by the reference
graph and fitted to a token budget (render/code/maprank.py ranks and lays out; render/code/tags.py reads one file).

The data is `collect`'s, the one function that knows where it comes from: today every source file under the walk,
read and parsed on the engine's confined walk (`Workspace.search_walk`, as `/symbols`: confinement, secrets,
`.stringsh/`, `.git/` and `.gitignore`d paths never offered, the read and walk limits, the grep permission, one
audit record), what was learnt of a file remembered by its identity and stat for the next map in this process.
A persistent symbol index can take its place without the ranking knowing.

Names and lines are as shown, secrets masked (tags.py), so nothing is ranked or printed by a secret's characters.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from stringsh.errors import StringError
from stringsh.render.code.maprank import MapView, Ranked, layout, rank_definitions
from stringsh.render.code.suffixes import language_of
from stringsh.render.code.tags import FileTags, file_tags
from stringsh.workspace import decode

if TYPE_CHECKING:
    from stringsh.workspace import SearchFile, Traversal, Workspace

#: The map's default size, in estimated tokens (maprank.tokens), and the smallest and largest it may be asked for.
DEFAULT_BUDGET = 1024
MIN_BUDGET = 64
MAX_BUDGET = 1_000_000
#: Files whose tags are remembered by stat between maps in one process.
REMEMBERED_FILES = 100_000

#: (path, device, inode, size, mtime, the masking's identity)
Key = tuple[str, int, int, int, int, int]


class _Remembered:
    """Key → a file's tags, for the next map in this process: an unchanged file is not read or parsed again."""

    def __init__(self) -> None:
        self._entries: OrderedDict[Key, FileTags] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Key) -> FileTags | None:
        return self._entries.get(key)

    def put(self, key: Key, tags: FileTags) -> None:
        with self._lock:
            self._entries[key] = tags
            while len(self._entries) > REMEMBERED_FILES:
                self._entries.popitem(last=False)


_REMEMBERED = _Remembered()


@dataclass
class Collected:
    """What a map is made of: every source file's tags under the walked folder, the focus paths as resolved."""

    scope: str  # the walked folder, root-relative ("." for the root)
    focus: list[str]  # the focus paths, root-relative
    files: list[FileTags] = field(default_factory=list)
    traversal: Traversal | None = None


@dataclass
class RepoMap:
    collected: Collected
    budget: int
    ranked: list[Ranked]
    view: MapView

    @property
    def definitions(self) -> int:
        return len(self.ranked)


def collect(ws: Workspace, scope: str, focus: list[str], *, command: str, topic: str | None = None) -> Collected:
    """The definitions and identifier counts of every source file under `scope`, and `focus` resolved through the
    confiner (NOT_FOUND, INVALID_PATH, SECRET_DENIED before anything is read): the map's one data source."""
    walking = ws.search_walk([scope, *focus], command=command, topic=topic)  # NOT_PERMITTED first
    masking = hash((ws.redactor.sources, ws.redactor.replacement))
    with walking:
        resolved = []
        for path in focus:
            found = walking.files(path)  # checked, never walked: membership is by path below
            resolved.append(found.rel)
            found.close()
        searched = walking.files(scope)
        collected = Collected(searched.rel, resolved)
        for found in searched:
            language = language_of(found.rel)
            if language is None:
                continue
            tags = _tags(ws, found, language, masking)
            if tags is not None:
                collected.files.append(tags)
        collected.traversal = walking.traversal()
    return collected


def _tags(ws: Workspace, found: SearchFile, language: str, masking: int) -> FileTags | None:
    key = (found.rel, *found.key, masking) if found.key is not None else None
    known = _REMEMBERED.get(key) if key is not None else None
    if known is not None:
        return known
    raw = found.read()
    if raw is None:
        return None
    try:
        text = decode(raw, found.rel)[0]
    except StringError:
        return None
    shown = ws.redactor if ws.redactor.may_mask(raw) else None
    tags = file_tags(found.rel, text, language, shown, ws.redact_lines if shown is not None else None)
    if key is not None:
        _REMEMBERED.put(key, tags)
    return tags


def in_focus(path: str, focus: list[str]) -> bool:
    return any(where in ("", ".") or path == where or path.startswith(where + "/") for where in focus)


def repo_map(ws: Workspace, scope: str, focus: list[str], budget: int | None = None, *,
             topic: str | None = None) -> RepoMap:
    """The map of `scope` (personalized toward the source files under `focus`), fitted to `budget` tokens."""
    budget = DEFAULT_BUDGET if budget is None else budget
    if not MIN_BUDGET <= budget <= MAX_BUDGET:
        raise StringError("INVALID_PAYLOAD", f"The budget must be from {MIN_BUDGET} to {MAX_BUDGET} tokens, got "
                          f"{budget}", f"For example --budget {DEFAULT_BUDGET} (about 4 characters a token).")
    command = " ".join(["map", *focus, "--budget", str(budget)])
    collected = collect(ws, scope, focus, command=command, topic=topic)
    focused = {tags.path for tags in collected.files if in_focus(tags.path, collected.focus)}
    ranked = rank_definitions(collected.files, focused)
    return RepoMap(collected, budget, ranked, layout(ranked, budget))
