"""glob: files whose path below the search folder matches a root-relative pattern, newest first (the JSON tools').

Patterns use wcmatch's glob rules (GLOBSTAR | DOTGLOB | BRACE): `*`, `?` and `[...]` stay inside one name, `**`
spans folders, `{a,b}` lists alternatives. A pattern is matched against the path relative to the search folder,
so `*.py` means the folder's own files and `**/*.py` every one below it. `/`-rooted patterns and `..` are refused:
a pattern names paths inside the workspace, never a way out of it. A pattern is matched against the path as it is
shown, secrets masked (a file named after a token is `***REDACTED***.txt` to every pattern): a name masked in the
reply can never be matched, and so never told, a character at a time. Secret files are never walked at all.
"""

from __future__ import annotations

import os
import re
from operator import itemgetter
from stat import S_ISREG
from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError
from stringsh.workspace.ops.guard import require
from stringsh.workspace.ops.rgwalk import usable
from stringsh.workspace.ops.walk import Start, Traversal, WalkStats, start_at, walk
from stringsh.workspace.paths import TEMP_PREFIX

if TYPE_CHECKING:
    from collections.abc import Iterator

    from stringsh.workspace.engine import Workspace

MAX_PATTERN_BYTES = 1024
BY_TIME, BY_PATH = itemgetter(0), itemgetter(1)
#: Matches gathered past `max_results` before the oldest are dropped (_Newest).
PRUNE_AT = 8192


class GlobRequest(NamedTuple):
    pattern: str
    path: str = "."
    topic: str | None = None
    max_results: int | None = None
    #: The counted walk (scanned files and entries, every skip); without it only what is listed is exact.
    stats: bool = False
    #: "auto": `rg --files` walks when rg is installed (ops/rgwalk.py); "rg" or "python" to choose (tests, bench).
    engine: str = "auto"


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
    engine: str = "python"  # which engine walked: "rg" or "python" (the reply text is the same)


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
        stats = WalkStats(counted=request.stats)
        rg = None
        if request.engine != "python":
            from stringsh.workspace.ops.rgsearch import find_rg

            rg = find_rg()
            if rg is None and request.engine == "rg":
                os.close(start.fd)
                raise StringError("NOT_FOUND", "ripgrep (rg) is not installed.", "Glob with the Python engine.")
        if request.stats or not usable(ws, start.rel):
            rg = None  # the counted walk is Python's; so is another root's
        newest = _Newest(limit)
        engine = "rg" if rg is not None and _rg_files(ws, rg, start, pattern, matcher, cut, stats, newest) else ""
        if not engine:
            engine, newest = "python", _Newest(limit)
            for item in _walked(ws, start if rg is None else start_at(ws, request.path), matcher, cut, stats):
                newest.add(item)
        ordered = _newest(newest.items, limit)
        matches = tuple(GlobMatch(rel, mtime, size) for mtime, rel, size in ordered)
        return GlobResult(request.pattern, start.rel, matches, newest.total > len(matches), newest.total,
                          stats.snapshot(), engine)


class _Newest:
    """The newest `limit` matches, and at most PRUNE_AT more (memory stays bounded), and how many there were."""

    __slots__ = ("items", "limit", "total")

    def __init__(self, limit: int) -> None:
        self.items: list[tuple[int, str, int]] = []
        self.limit = limit
        self.total = 0

    def add(self, item: tuple[int, str, int]) -> None:
        self.total += 1
        self.items.append(item)
        if len(self.items) >= self.limit + PRUNE_AT:
            self.items = _newest(self.items, self.limit)


def _walked(ws: Workspace, start: Start, matcher: re.Pattern[str] | NamePattern, cut: int, stats: WalkStats
            ) -> Iterator[tuple[int, str, int]]:
    """(mtime, path, size) of each match of the confined walk; only a match is statted."""
    shown = ws.redactor
    for found in walk(ws, start, stats, stat_files=False):
        if matcher.fullmatch(shown(found.rel[cut:])) is None:
            continue
        try:
            st = os.stat(found.name, dir_fd=found.dir_fd, follow_symlinks=False)
        except OSError:
            stats.skipped_io_errors += 1
            continue
        if not S_ISREG(st.st_mode):
            stats.skipped_walk_errors += 1  # swapped for a link or a folder since the listing
            continue
        yield st.st_mtime_ns, found.rel, st.st_size


def _rg_files(ws: Workspace, rg: str, start: Start, pattern: str, matcher: re.Pattern[str] | NamePattern, cut: int,
              stats: WalkStats, newest: _Newest) -> bool:
    """(mtime, path, size) of each match among the files `rg --files` walks (rgwalk.py) into `newest`, taken while
    rg walks on: each one the walk would yield is statted in its folder, opened from the root without following a
    symlink, and left out when it is no longer a regular file reached so. False when rg's answer is not taken."""
    from stringsh.workspace.ops.rgwalk import SIMPLE_NAME, Folders, IgnoreCheck, Listing, Visible, command

    name = pattern[3:]
    masked_as = ws.redactor
    # rg's --glob sees raw names: it stands for the pattern only for a name masking leaves alone, on paths it does
    exact = isinstance(matcher, NamePattern) and SIMPLE_NAME.fullmatch(name) is not None and masked_as(name) == name
    listing = Listing(command(rg, start.rel, "--files", *(("--glob", name) if exact else ())),
                      ws, stats.deadline)
    check = IgnoreCheck(ws, start, listing)
    visible = Visible(ws)
    entered, denied_leaf, folders = visible.folders, visible.denied_leaf, Folders(ws)
    opened, stat = folders.open_fds, os.stat
    items, cap, total = newest.items, newest.limit + PRUNE_AT, 0
    try:
        for batch in listing.batches():
            for rel in batch:  # the walk's rules, inline: this loop runs for every file of the tree
                parent, _, name = rel.rpartition("/")
                shown = entered.get(parent)
                if not (shown or (shown is None and visible.folder(parent))) or name.startswith(TEMP_PREFIX):
                    continue
                # rg's --glob NAME matched what the NamePattern would on a path masking leaves alone: only the walk's
                # own rules are left
                if denied_leaf(rel):
                    continue
                if exact:
                    masked = masked_as(rel[cut:])
                    if masked != rel[cut:] and matcher.fullmatch(masked) is None:
                        continue
                elif matcher.fullmatch(masked_as(rel[cut:])) is None:
                    continue
                try:
                    fd = opened.get(parent)
                    st = stat(name, dir_fd=folders.open(parent) if fd is None else fd, follow_symlinks=False)
                except OSError:
                    continue
                if S_ISREG(st.st_mode):  # _Newest.add, inline
                    total += 1
                    items.append((st.st_mtime_ns, rel, st.st_size))
                    if len(items) >= cap:
                        items = _newest(items, newest.limit)
    finally:
        newest.items = items
        newest.total += total
        folders.close()
        os.close(start.fd)
    if not check.passed() or listing.failed:
        return False
    if listing.late:
        stats.limit_reason = "time"
    return True


def _newest(items: list[tuple[int, str, int]], limit: int) -> list[tuple[int, str, int]]:
    """The `limit` newest, newest first, ties by path: two stable sorts on C-made keys (by path, then by time
    reversed, which keeps equal times in path order) beat one on a key made in Python for every item."""
    ordered = sorted(items, key=BY_PATH)
    ordered.sort(key=BY_TIME, reverse=True)
    return ordered[:limit]
