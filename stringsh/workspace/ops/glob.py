"""glob: files whose path below the search folder matches a root-relative pattern, newest first (seed 001).

Patterns use wcmatch's glob rules (GLOBSTAR | DOTGLOB | BRACE): `*`, `?` and `[...]` stay inside one name, `**`
spans folders, `{a,b}` lists alternatives. A pattern is matched against the path relative to the search folder,
so `*.py` means the folder's own files and `**/*.py` every one below it. `/`-rooted patterns and `..` are refused:
a pattern names paths inside the workspace, never a way out of it.
"""

from __future__ import annotations

import heapq
import os
import re
from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError
from stringsh.workspace.ops.guard import require
from stringsh.workspace.ops.walk import Traversal, WalkStats, start_at, walk

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace

MAX_PATTERN_BYTES = 1024


class GlobRequest(NamedTuple):
    pattern: str
    path: str = "."
    topic: str | None = None
    max_results: int | None = None


class GlobMatch(NamedTuple):
    rel: str
    mtime_ns: int
    size: int


class GlobResult(NamedTuple):
    """Matches newest first (ties by path); `truncated` when more matched than `max_results` allowed."""

    pattern: str
    path: str
    matches: tuple[GlobMatch, ...]
    truncated: bool
    total: int
    traversal: Traversal


def check_pattern(pattern: str, what: str = "Glob pattern") -> None:
    """Refuse patterns that are empty, absolute, climb with `..`, or hold control characters."""
    if not pattern.strip():
        raise StringError("INVALID_PAYLOAD", f"{what} is empty.", "Give a pattern such as **/*.py.")
    if "\x00" in pattern or "\n" in pattern or "\r" in pattern or len(pattern.encode("utf-8", "replace")) > 1024:
        raise StringError("INVALID_PATH", f"{what} holds a NUL or line break, or is longer than 1 KiB.",
                          "Give one line of at most 1 KiB.")
    if pattern.startswith("/") or pattern.startswith("\\"):
        raise StringError("INVALID_PATH", f"{what} must be relative to the search folder, not absolute: {pattern}",
                          "Drop the leading /; name the folder as the path argument instead.")
    if ".." in re.split(r"[/\\{},]", pattern):
        raise StringError("INVALID_PATH", f"{what} must not climb out with '..': {pattern}",
                          "Patterns name paths inside the workspace; give a folder as the path argument instead.")


def compile_pattern(pattern: str) -> re.Pattern[str]:
    """One regular expression for the pattern (and each `{a,b}` alternative), wcmatch's own translation."""
    from wcmatch import glob  # glob and grep only

    flags = glob.GLOBSTAR | glob.DOTGLOB | glob.BRACE | glob.FORCEUNIX
    positive, _ = glob.translate(pattern, flags=flags)
    return re.compile("|".join(f"(?:{p})" for p in positive))


def glob_paths(ws: Workspace, request: GlobRequest) -> GlobResult:
    require(ws.policy, ws.policy.permissions.glob, "glob")
    check_pattern(request.pattern)
    pattern = request.pattern
    while pattern.startswith("./"):
        pattern = pattern[2:]
    matcher = compile_pattern(pattern)
    limit = ws.policy.limits.max_results
    if request.max_results is not None:
        limit = max(0, min(limit, request.max_results))
    with ws.audited("glob", [request.path], topic=request.topic, command=f"glob {request.pattern}"):
        start = start_at(ws, request.path)
        if start.file is not None:
            os.close(start.fd)
            raise StringError("INVALID_TARGET", "Not a directory", f"{start.rel} is a file; give its folder.")
        cut = 0 if start.rel == "." else len(start.rel) + 1
        stats = WalkStats()
        newest: list[_Key] = []  # a bounded heap of the newest `limit` matches
        total = 0
        for found in walk(ws, start, stats):
            if matcher.fullmatch(found.rel[cut:]) is None:
                continue
            total += 1
            item = (found.st.st_mtime_ns, found.rel, found.st.st_size)
            if len(newest) < limit:
                heapq.heappush(newest, _Key(item))
            elif limit and _Key(item) > newest[0]:
                heapq.heapreplace(newest, _Key(item))
        ordered = sorted((key.item for key in newest), key=lambda i: (-i[0], i[1]))
        matches = tuple(GlobMatch(rel, mtime, size) for mtime, rel, size in ordered)
        return GlobResult(request.pattern, start.rel, matches, total > len(matches), total, stats.snapshot())


class _Key:
    """Heap order: older is smaller; at equal times the later path is smaller (so the earlier one is kept)."""

    __slots__ = ("item",)

    def __init__(self, item: tuple[int, str, int]) -> None:
        self.item = item

    def __lt__(self, other: _Key) -> bool:
        if self.item[0] != other.item[0]:
            return self.item[0] < other.item[0]
        return self.item[1] > other.item[1]

    def __gt__(self, other: _Key) -> bool:
        return other < self
