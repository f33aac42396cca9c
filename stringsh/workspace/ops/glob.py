"""glob: files whose path below the search folder matches a root-relative pattern, newest first (the JSON tools').

Patterns use wcmatch's glob rules (GLOBSTAR | DOTGLOB | BRACE): `*`, `?` and `[...]` stay inside one name, `**`
spans folders, `{a,b}` lists alternatives. A pattern is matched against the path relative to the search folder,
so `*.py` means the folder's own files and `**/*.py` every one below it. `/`-rooted patterns and `..` are refused:
a pattern names paths inside the workspace, never a way out of it.
"""

from __future__ import annotations

import os
import re
from stat import S_ISREG
from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError
from stringsh.workspace.ops.guard import require
from stringsh.workspace.ops.walk import Traversal, WalkStats, start_at, walk

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace

MAX_PATTERN_BYTES = 1024
#: Matches gathered past `max_results` before the oldest are dropped (memory stays bounded).
PRUNE_AT = 8192


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


def compile_pattern(pattern: str) -> re.Pattern[str] | NamePattern:
    """The pattern as wcmatch matches it; for `**/NAME` (NAME without `/` or `**`), NAME matched on a path's last
    name (NamePattern)."""
    name = pattern[3:]
    if pattern.startswith("**/") and name and "/" not in name and "**" not in name:
        return NamePattern(translate(name))
    return translate(pattern)


def translate(pattern: str) -> re.Pattern[str]:
    """One regular expression for the pattern (and each `{a,b}` alternative), wcmatch's own translation."""
    from wcmatch import glob  # glob and grep only

    flags = glob.GLOBSTAR | glob.DOTGLOB | glob.BRACE | glob.FORCEUNIX
    positive, _ = glob.translate(pattern, flags=flags)
    return re.compile("|".join(f"(?:{p})" for p in positive))


class NamePattern:
    """`**/NAME` matched as wcmatch matches it (any folders, then a last name matching NAME), on the last name
    alone: the whole-path translation costs several times more per path, and glob and grep try every file."""

    __slots__ = ("name",)

    def __init__(self, name: re.Pattern[str]) -> None:
        self.name = name

    def fullmatch(self, rel: str) -> re.Match[str] | None:
        return self.name.fullmatch(rel[rel.rfind("/") + 1:])


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
        newest: list[tuple[int, str, int]] = []  # the newest `limit` matches, and at most PRUNE_AT more
        total = 0
        for found in walk(ws, start, stats, stat_files=False):
            if matcher.fullmatch(found.rel[cut:]) is None:
                continue
            st = found.st
            if st is None:  # only a match's time and size are wanted: stat it alone
                try:
                    st = os.stat(found.name, dir_fd=found.dir_fd, follow_symlinks=False)
                except OSError:
                    stats.skipped_io_errors += 1
                    continue
                if not S_ISREG(st.st_mode):
                    stats.skipped_walk_errors += 1  # swapped for a link or a folder since the listing
                    continue
            total += 1
            newest.append((st.st_mtime_ns, found.rel, st.st_size))
            if len(newest) >= limit + PRUNE_AT:
                newest = _newest(newest, limit)
        ordered = _newest(newest, limit)
        matches = tuple(GlobMatch(rel, mtime, size) for mtime, rel, size in ordered)
        return GlobResult(request.pattern, start.rel, matches, total > len(matches), total, stats.snapshot())


def _newest(items: list[tuple[int, str, int]], limit: int) -> list[tuple[int, str, int]]:
    """The `limit` newest, newest first, ties by path (sorting in C beats a heap of Python-compared keys)."""
    return sorted(items, key=_order)[:limit]


def _order(item: tuple[int, str, int]) -> tuple[int, str]:
    return -item[0], item[1]
