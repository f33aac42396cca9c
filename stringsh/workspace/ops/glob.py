"""glob: files whose path below the search folder matches a root-relative pattern, in path order (as `rg --files
--sort path` lists them: folder by folder, names by code point) or newest first (`sort="mtime"`: the JSON tools').

Patterns use wcmatch's glob rules (GLOBSTAR | DOTGLOB | BRACE): `*`, `?` and `[...]` stay inside one name, `**`
spans folders, `{a,b}` lists alternatives. A pattern is matched against the path relative to the search folder,
so `*.py` means the folder's own files and `**/*.py` every one below it. `/`-rooted patterns and `..` are refused:
a pattern names paths inside the workspace, never a way out of it. A pattern is matched against the path as it is
shown, secrets masked (a file named after a token is `***REDACTED***.txt` to every pattern): a name masked in the
reply can never be matched, and so never told, a character at a time. Secret files are never walked at all.

In path order only the files shown are looked at (each one checked still a regular file where the walk met it, from
its folder's listing when many are shown from one folder): the others are counted as the walk, or rg, named them.
A match's time and size are given newest first only, which needs the time of every match, a stat each.
"""

from __future__ import annotations

import os
import re
from itertools import repeat
from operator import itemgetter
from stat import S_ISREG
from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError
from stringsh.workspace.ops.globfirst import PATH_KEY, Item
from stringsh.workspace.ops.guard import require
from stringsh.workspace.ops.rgwalk import usable
from stringsh.workspace.ops.walk import Found, Start, Traversal, WalkStats, start_at, walk

if TYPE_CHECKING:
    from collections.abc import Iterator

    from stringsh.workspace.engine import Workspace

MAX_PATTERN_BYTES = 1024
BY_PATH, BY_TIME = itemgetter(0), itemgetter(1)
#: The orders a glob lists in: by path (the default), or newest first (by modification time, then by path).
SORTS = ("path", "mtime")
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
    #: One of SORTS: "path" (only the files shown are statted) or "mtime" (newest first: a stat per match).
    sort: str = "path"


class GlobMatch(NamedTuple):
    """A match; its time and size only newest first (each match statted there), None in path order (where a file
    is looked up only as still a regular file)."""

    rel: str
    mtime_ns: int | None
    size: int | None


class GlobResult(NamedTuple):
    """Matches in the request's order (by path, or newest first with ties by path); `truncated` when more matched
    than `max_results` allowed."""

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
    if request.sort not in SORTS:
        raise StringError("INVALID_PAYLOAD", f"Unknown glob order: {request.sort}",
                          "Sort by path (the default) or by mtime (newest first).")
    pattern = request.pattern
    while pattern.startswith("./"):
        pattern = pattern[2:]
    matcher = compile_pattern(pattern)
    limit = ws.policy.limits.max_results
    if request.max_results is not None:
        limit = max(0, min(limit, request.max_results))
    by_time = request.sort == "mtime"
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
        listed = None if rg is None else _rg_files(ws, rg, start, pattern, matcher, cut, stats, limit, by_time)
        engine = "rg" if listed is not None else "python"
        if listed is None:
            walked = _walked(ws, start if rg is None else start_at(ws, request.path), matcher, cut, stats)
            listed = _newest_walked(walked, stats, limit) if by_time else _first_walked(walked, stats, limit)
        items, total = listed
        matches = tuple(map(tuple.__new__, repeat(GlobMatch), items))  # (GlobMatch._make's work, in C)
        return GlobResult(request.pattern, start.rel, matches, total > len(matches), total, stats.snapshot(),
                          engine)


class _Newest:
    """The newest `limit` matches, and at most PRUNE_AT more (memory stays bounded), and how many there were."""

    __slots__ = ("items", "limit", "total")

    def __init__(self, limit: int) -> None:
        self.items: list[Item] = []
        self.limit = limit
        self.total = 0

    def add(self, item: Item) -> None:
        self.total += 1
        self.items.append(item)
        if len(self.items) >= self.limit + PRUNE_AT:
            self.items = _newest(self.items, self.limit)

    def result(self) -> tuple[list[Item], int]:
        return _newest(self.items, self.limit), self.total


def _walked(ws: Workspace, start: Start, matcher: re.Pattern[str] | NamePattern, cut: int, stats: WalkStats
            ) -> Iterator[Found]:
    """The matches of the confined walk, not statted: each path meets the pattern as it is shown, masked."""
    shown, full = ws.redactor.path_masker(), matcher.fullmatch
    for found in walk(ws, start, stats, stat_files=False):
        if full(shown(found.rel[cut:])) is not None:
            yield found


def _statted(found: Found, stats: WalkStats) -> Item | None:
    """The match's time and size, None when it is no longer a regular file in the folder the walk holds."""
    try:
        st = os.stat(found.name, dir_fd=found.dir_fd, follow_symlinks=False)
    except OSError:
        stats.skipped_io_errors += 1
        return None
    if not S_ISREG(st.st_mode):
        stats.skipped_walk_errors += 1  # swapped for a link or a folder since the listing
        return None
    return found.rel, st.st_mtime_ns, st.st_size


def _newest_walked(walked: Iterator[Found], stats: WalkStats, limit: int) -> tuple[list[Item], int]:
    """The newest `limit` matches of the walk (each one statted) and how many there were."""
    newest = _Newest(limit)
    for found in walked:
        item = _statted(found, stats)
        if item is not None:
            newest.add(item)
    return newest.result()


def _first_walked(walked: Iterator[Found], stats: WalkStats, limit: int) -> tuple[list[Item], int]:
    """The first `limit` matches of the walk in path order (no time or size) and how many there were. A match is
    statted (still a regular file) only while it may still be among them: past `limit` of them, one sorting after
    the last kept is counted, never statted (the walk's order is nearly path order, so that is nearly every one)."""
    kept: list[tuple[str, Item]] = []
    bound: str | None = "" if limit == 0 else None  # the key of the last kept once `limit` are kept
    total = 0
    for found in walked:
        total += 1
        key = PATH_KEY(found.rel)
        if bound is not None and key >= bound:
            continue
        if _statted(found, stats) is None:
            total -= 1
            continue
        kept.append((key, (found.rel, None, None)))
        if len(kept) >= 2 * limit + 64:
            kept.sort()  # by key: paths differ, so items are never compared
            del kept[limit:]
            bound = kept[-1][0]
    kept.sort()
    return [item for _, item in kept[:limit]], total


def _rg_files(ws: Workspace, rg: str, start: Start, pattern: str, matcher: re.Pattern[str] | NamePattern, cut: int,
              stats: WalkStats, limit: int, by_time: bool) -> tuple[list[Item], int] | None:
    """The matches among the files `rg --files` walks (rgwalk.py), as glob_paths wants them, or None when rg's answer
    is not taken. Each path is held to the walk's rules; a batch of paths rg printed is screened whole first
    (ops/pathscreen.py), so only the few that may be hidden or masked are checked one by one. Each file shown is
    statted in its folder, opened from the root without following a symlink, and left out when it is no longer a
    regular file reached so: newest first, every match, while rg walks on; in path order, the files shown alone."""
    from stringsh.workspace.ops.globfirst import FirstByPath
    from stringsh.workspace.ops.ignorecheck import IgnoreCheck
    from stringsh.workspace.ops.pathscreen import PathScreen
    from stringsh.workspace.ops.rgwalk import SIMPLE_NAME, Folders, Listing, Visible, command

    name = pattern[3:]
    masked_as = ws.redactor
    # rg's --glob sees raw names: it stands for the pattern only for a name masking leaves alone, on paths it does
    exact = isinstance(matcher, NamePattern) and SIMPLE_NAME.fullmatch(name) is not None and masked_as(name) == name
    listing = Listing(command(rg, start.rel, "--files", *(("--glob", name) if exact else ())), ws, stats.deadline)
    check = IgnoreCheck(ws, start, listing)
    visible, screen, folders, full = Visible(ws), PathScreen(ws), Folders(ws), matcher.fullmatch

    def shown(rel: str) -> bool:
        """The walk's rules and the pattern, one path at a time: what the screen leaves to check."""
        if not visible(rel):
            return False
        masked = masked_as(rel[cut:])
        if exact:  # rg's --glob NAME matched what the NamePattern would on a path masking leaves alone
            return masked == rel[cut:] or full(masked) is not None
        return full(masked) is not None

    def statted(rel: str) -> Item | None:
        parent, _, leaf = rel.rpartition("/")
        try:
            st = os.stat(leaf, dir_fd=folders.open(parent), follow_symlinks=False)
        except OSError:
            return None
        return (rel, st.st_mtime_ns, st.st_size) if S_ISREG(st.st_mode) else None

    first = FirstByPath(limit)
    newest = _Newest(limit)
    try:
        for text in listing.texts():
            suspects = screen.suspects(text)
            if suspects is not None and not suspects and exact and not by_time:
                first.add_text(text)  # every path shown as it is: made into keys whole, never split into paths
                continue
            rels = text.split("\0")
            if suspects is None:
                batch = [rel for rel in rels if shown(rel)]
            elif suspects:
                batch = [rel for rel in rels if (shown(rel) if rel in suspects else exact or full(rel[cut:]))]
            elif exact:
                batch = rels
            elif cut:
                batch = [rel for rel in rels if full(rel[cut:]) is not None]
            else:
                batch = [rel for rel in rels if full(rel) is not None]
            if by_time:
                for item in map(statted, batch):
                    if item is not None:
                        newest.add(item)
            else:
                first.add(batch)
        if by_time:
            listed = newest.result()
        else:
            shown_rels, refused = first.shown(limit, folders)
            listed = [(rel, None, None) for rel in shown_rels], first.total - refused
    finally:
        folders.close()
        os.close(start.fd)
    if not check.passed() or listing.failed:
        return None
    if listing.late:
        stats.limit_reason = "time"
    return listed


def _newest(items: list[Item], limit: int) -> list[Item]:
    """The `limit` newest, newest first, ties by path: two stable sorts on C-made keys (by path, then by time
    reversed, which keeps equal times in path order) beat one on a key made in Python for every item."""
    ordered = sorted(items, key=BY_PATH)
    ordered.sort(key=BY_TIME, reverse=True)
    return ordered[:limit]
