"""grep: lines matching a literal (or a checked regex, ops/patterns.py) in the files of the confined walk.

Each file is read through the walk's descriptors (never by path, so a file swapped for a symlink is not followed),
within the read limit (larger files are skipped and counted), strictly decoded (binary and non-UTF-8 files are
skipped and counted), and, when the query occurs in it, redacted as a whole with line breaks kept, then searched
line by line: a secret is masked in every line shown and can never be found by its own text. Lines use the one line
model (`\\r\\n`, `\\r`, `\\n`), are clipped at the policy's max_line_bytes, and come in walk order (path, line).
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError
from stringsh.workspace.ops.guard import require
from stringsh.workspace.ops.patterns import compile_query
from stringsh.workspace.ops.walk import Found, Traversal, WalkStats, open_found, start_at, walk
from stringsh.workspace.textio import BREAK, decode

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace

MAX_CONTEXT = 50


class GrepRequest(NamedTuple):
    query: str
    path: str = "."
    regex: bool = False
    glob: str | None = None
    ignore_case: bool = False
    context: int = 0
    max_results: int | None = None
    topic: str | None = None


class GrepLine(NamedTuple):
    """A line shown: a match (`match`) or a context line around one; `text` redacted and clipped."""

    path: str
    line: int
    text: str
    line_truncated: bool
    match: bool = True


class GrepResult(NamedTuple):
    query: str
    path: str
    lines: tuple[GrepLine, ...]
    matches: int  # matching lines returned
    files: int  # files with a returned match
    truncated: bool  # more matches than max_results
    skipped_too_large_files: int
    skipped_non_utf8_files: int
    traversal: Traversal


class _Counts:
    __slots__ = ("files", "matches", "non_utf8", "too_large")

    def __init__(self) -> None:
        self.files = self.matches = self.non_utf8 = self.too_large = 0


def file_filter(glob: str | None) -> re.Pattern[str] | None:
    """`--glob G`: without `/` it names files at any depth (`*.py`), with `/` paths below the search folder."""
    if glob is None:
        return None
    from stringsh.workspace.ops.glob import check_pattern, compile_pattern

    check_pattern(glob, "--glob pattern")
    return compile_pattern(glob if "/" in glob.rstrip("/") else "**/" + glob)


def grep(ws: Workspace, request: GrepRequest) -> GrepResult:
    require(ws.policy, ws.policy.permissions.grep, "grep")
    query = compile_query(request.query, regex=request.regex, ignore_case=request.ignore_case)
    if not 0 <= request.context <= MAX_CONTEXT:
        raise StringError("INVALID_PAYLOAD", f"Context must be 0 to {MAX_CONTEXT} lines, got {request.context}.")
    only = file_filter(request.glob)
    limit = ws.policy.limits.max_results
    if request.max_results is not None:
        limit = max(1, min(limit, request.max_results))
    with ws.state.audited("grep", [request.path], request.topic):
        start = start_at(ws, request.path)
        cut = 0 if start.rel == "." or start.file is not None else len(start.rel) + 1
        stats, counts = WalkStats(), _Counts()
        lines: list[GrepLine] = []
        truncated = False
        for found in walk(ws, start, stats):
            if only is not None and only.fullmatch(found.rel[cut:]) is None:
                continue
            text = _read(ws, found, stats, counts)
            if text is None or (query.text is not None and query.text.search(text) is None):
                continue
            room = limit - counts.matches
            shown, more = _search(ws, found.rel, text, query.line, request.context, room, lines)
            if shown:
                counts.files += 1
                counts.matches = sum(1 for line in lines if line.match)
            if more:
                truncated = True
                stats.limit_reason = "results"
                break
        return GrepResult(request.query, start.rel, tuple(lines), counts.matches, counts.files,
                          truncated, counts.too_large, counts.non_utf8, stats.snapshot())


def _read(ws: Workspace, found: Found, stats: WalkStats, counts: _Counts) -> str | None:
    """The file's text, or None (counted) when it is too large, unreadable, hard-linked, binary or not UTF-8."""
    policy = ws.policy
    if found.st.st_size > policy.limits.max_read_bytes:
        counts.too_large += 1
        return None
    opened = open_found(found)
    if opened is None:
        stats.skipped_io_errors += 1
        return None
    fd, st = opened
    try:
        if st.st_nlink > 1 and not policy.secrets.allow_hardlinks:
            stats.skipped_walk_errors += 1  # may alias a file outside the root (guard.check_hardlink)
            return None
        if st.st_size > policy.limits.max_read_bytes:
            counts.too_large += 1
            return None
        chunks, size = [], 0
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
            size += len(chunk)
            if size > policy.limits.max_read_bytes:
                counts.too_large += 1
                return None
    except OSError:
        stats.skipped_io_errors += 1
        return None
    finally:
        os.close(fd)
    try:
        return decode(b"".join(chunks), found.rel)[0]
    except StringError:
        counts.non_utf8 += 1
        return None


def _search(ws: Workspace, rel: str, text: str, pattern: re.Pattern[str], context: int, room: int,
            out: list[GrepLine]) -> tuple[bool, bool]:
    """Append the file's matching lines (and context) to `out`: (any appended, more matched than `room`)."""
    redacted = BREAK.split(ws.redact_lines(text))
    if redacted[-1] == "":
        redacted.pop()  # the empty piece after a final line break is not a line
    hits = [index for index, line in enumerate(redacted) if pattern.search(line) is not None]
    over = len(hits) > room
    hits = hits[:room]
    if not hits:
        return False, over
    wanted: dict[int, bool] = {}
    for index in hits:
        for near in range(max(0, index - context), min(len(redacted), index + context + 1)):
            wanted.setdefault(near, False)
        wanted[index] = True
    max_bytes = ws.policy.limits.max_line_bytes
    for index in sorted(wanted):
        clipped, cut = _clip(redacted[index], max_bytes)
        out.append(GrepLine(rel, index + 1, clipped, cut, wanted[index]))
    return True, over


def _clip(line: str, max_bytes: int) -> tuple[str, bool]:
    encoded = line.encode("utf-8", "surrogatepass")
    if len(encoded) <= max_bytes:
        return line, False
    return encoded[:max_bytes].decode("utf-8", "ignore"), True
