"""grep: lines matching a literal (or a checked regex, ops/patterns.py) in the files of the confined walk, or of
rg's walk held to the same rules (rgwalk.py; the reply is the same, and only `--stats` counts the walk).

Each file is read through the walk's descriptors (never by path, so a file swapped for a symlink is not followed),
within the read limit (larger files are skipped and counted), left undecoded when its bytes lack the query's
required literal (patterns.py; in Latin-1 and cp1252 bytes too, legacytext.py), decoded as `/open` shows it
(textio.decode_or_legacy: UTF-8, UTF-16 with a BOM, else Latin-1 or cp1252; binary files, and files a BOM calls
what they are not, are skipped and counted), and, when the query occurs in it, redacted as a whole with line
breaks kept: a secret is masked in every line shown and can never be found by its own text. Whether a file
matches is decided on that masked text, as shown, never on the raw text:
bytes tests and rg's file list only rule files out, and only files masking cannot change or (for a query that
cannot meet the mask: redact.Redactor.meets_mask, patterns.regex_meets_mask) files without a match; otherwise rg
also names every file holding a secret's literal (`secret_patterns`). So no query finds a file, a line or a count
through a secret's own characters. The redacted text is searched once as a whole and only the lines hit are split
out (`hit_lines`); a pattern with anchors, or a match touching a line break, is matched line by line instead. Lines use
the one line model (`\\r\\n`, `\\r`, `\\n`), are clipped at the policy's max_line_bytes, and come in walk order
(path, line).
"""

from __future__ import annotations

import os
import re
from stat import S_ISREG
from typing import TYPE_CHECKING, Any, NamedTuple

from stringsh.errors import StringError
from stringsh.workspace.ops.guard import require
from stringsh.workspace.ops.legacytext import lacks, needles, rg_search
from stringsh.workspace.ops.patterns import Budget, Query, RegexTimeout, compile_query, regex_meets_mask, timeout_error
from stringsh.workspace.ops.rgwalk import usable
from stringsh.workspace.ops.walk import FILE_FLAGS, Found, Start, Traversal, WalkStats, start_at, walk
from stringsh.workspace.textio import BREAK, decode_or_legacy

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace
    from stringsh.workspace.ops.glob import NamePattern

MAX_CONTEXT = 50
#: A file starting so is UTF-16: its bytes hold no literal as UTF-8 does. Tested as `raw[:2] in UTF16_BOMS`: bytes
#: startswith with a tuple costs some 1,700 instructions a call (it tries each prefix as an int first, and fails).
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


class GrepRequest(NamedTuple):
    query: str
    path: str = "."
    regex: bool = False
    glob: str | None = None
    ignore_case: bool = False
    context: int = 0
    max_results: int | None = None
    topic: str | None = None
    #: "auto": ripgrep when installed (ops/rgwalk.py), else Python; "rg" or "python" to choose (tests, bench).
    engine: str = "auto"
    #: The counted walk (scanned files and entries, every skip); without it only what is shown is exact.
    stats: bool = False


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
    engine: str = "python"  # which engine found the files: "rg" or "python" (the reply text is the same)
    one_file: bool = False  # `path` named a file, not a folder


class _Counts:
    __slots__ = ("files", "matches", "non_utf8", "too_large")

    def __init__(self) -> None:
        self.files = self.matches = self.non_utf8 = self.too_large = 0


def file_filter(glob: str | None) -> re.Pattern[str] | NamePattern | None:
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
    rg = None
    # "auto" takes rg whenever it can: it walks and searches on every core. A regex with anchors always uses
    # Python: only Python's line model splits lines at a lone \r.
    if request.engine != "python" and query.text is not None:
        from stringsh.workspace.ops.rgsearch import find_rg

        rg = find_rg()
    if request.engine == "rg" and rg is None:
        raise StringError("NOT_FOUND", "ripgrep (rg) is not installed, or the query has line anchors.",
                          "pip install 'stringsh[search]', or search with the Python engine.")
    # rg sees raw bytes: its list of files stands for the masked text's only when the query cannot meet a mask, or
    # when rg also names every file that may hold a secret (`secret_patterns`)
    if request.regex:
        meets_mask = regex_meets_mask(request.query, ws.redactor.replacement, ignore_case=request.ignore_case)
    else:
        meets_mask = ws.redactor.meets_mask(request.query, ignore_case=request.ignore_case)
    search = None
    if rg is not None:  # the query, and what Latin-1 and cp1252 files need (legacytext.py)
        search = rg_search(request.query, regex=request.regex, ignore_case=request.ignore_case)
        also = secret_patterns(ws, regex=search.regex) if meets_mask else ()
        search = None if also is None else search._replace(patterns=(*search.patterns, *also))
    with ws.audited("grep", [request.path], topic=request.topic, command=f"grep {request.query}"):
        run = Run(ws, query, request.context, limit, WalkStats(counted=request.stats), meets_mask)
        start = start_at(ws, request.path)
        cut = 0 if start.rel == "." or start.file is not None else len(start.rel) + 1
        engine = "python"
        if search is not None and not request.stats and start.file is None and usable(ws, start.rel):
            from stringsh.workspace.ops.rgwalk import walked_search

            engine = walked_search(ws, run, rg, request, start, only, cut, search)
        elif search is not None and (request.engine == "rg" or query.needle is None or query.timed):
            # the counted walk reads every file anyway: rg as its prefilter pays off for a regex or -i, while a
            # case-sensitive literal is found as fast by a bytes test per file
            from stringsh.workspace.ops.rgsearch import counted_search

            engine = counted_search(ws, run, rg, request, start, only, cut, search)
        else:
            python_search(ws, run, start, only, cut)
        counts = run.counts
        too_large = counts.too_large if request.stats else 0
        return GrepResult(request.query, start.rel, tuple(run.lines), counts.matches, counts.files, run.truncated,
                          too_large, counts.non_utf8, run.stats.snapshot(), engine, start.file is not None)


def python_search(ws: Workspace, run: Run, start: Start, only: re.Pattern[str] | NamePattern | None,
                  cut: int) -> None:
    """The Python engine: the confined walk, each file read once (Run._read)."""
    shown = ws.redactor
    for found in walk(ws, start, run.stats, stat_files=False):  # _read checks each opened file
        wanted = only is None or only.fullmatch(shown(found.rel[cut:])) is not None
        if wanted and (found.st is None or run.admit(found.st)) and run.search(found):
            break


def secret_patterns(ws: Workspace, *, regex: bool) -> tuple[str, ...] | None:
    """rg patterns (fixed strings, or regexes for a regex search) naming every file masking may change: the
    built-in secrets' literals. None when the policy has patterns of its own (rg cannot say where they match)."""
    from stringsh.workspace.redact import LITERALS

    if ws.redactor.sources:
        return None
    # `-` as a one-character class: an escaped `\-` is not accepted by every regex syntax
    return tuple(literal.replace("-", "[-]") for literal in LITERALS) if regex else LITERALS


class Run:
    """One search's state, shared by both engines so they count and show alike."""

    def __init__(self, ws: Workspace, query: Query, context: int, limit: int, stats: WalkStats,
                 meets_mask: bool = True) -> None:
        self.ws = ws
        #: Whether the query may match masked text where the raw text holds no match (grep: `meets_mask`): then a
        #: file that may hold a secret is decided on its masked text alone.
        self.meets_mask = meets_mask
        self.query = query
        self.context = context
        self.limit = limit
        self.stats = stats
        self.counts = _Counts()
        self.lines: list[GrepLine] = []
        self.truncated = False
        # looked up once: read for every file
        self.max_bytes = ws.policy.limits.max_read_bytes
        self.hardlinks = ws.policy.secrets.allow_hardlinks
        #: The required literals with their Latin-1 and cp1252 bytes; None when all are ASCII (the common case)
        self.legacy = None if query.needle is None else needles((query.needle, *query.others))
        #: Whether a file whose raw bytes lack a required literal is ruled out even where masking may change its
        #: text: no required literal can meet a mask, so the masked text holds one only where the raw text does
        #: (most regexes; masking's test then runs only on the few files holding them all).
        self.needles_decide = not meets_mask or (query.needle is not None and not any(
            ws.redactor.meets_mask(literal.decode("utf-8", "surrogatepass"))
            for literal in (query.needle, *query.others)))

    def admit(self, st: os.stat_result) -> bool:
        """Whether a walked file is searched at all: within the read limit and not hard-linked (both counted)."""
        if st.st_size > self.max_bytes:
            self.counts.too_large += 1
            return False
        if st.st_nlink > 1 and not self.hardlinks:
            self.stats.skipped_walk_errors += 1  # may alias a file outside the root (guard.check_hardlink)
            return False
        return True

    def search(self, found: Found) -> bool:
        """Read and search one file; True when the results ran out (the search stops). A regex that runs past
        its budget on the file stops the whole search with TIMEOUT (patterns.py)."""
        raw = self._read(found)
        if raw is None:
            return False
        query = self.query
        needle = query.needle
        # raw.find, not `in`: bytes.__contains__ first tries the needle as an int, and fails (3.11: ~1,000 more
        # instructions a file)
        lacking = needle is not None and raw[:2] not in UTF16_BOMS and (
            (raw.find(needle) < 0 or (query.others and any(raw.find(other) < 0 for other in query.others)))
            if self.legacy is None else lacks(raw, self.legacy))
        # no match in any encoding but UTF-16's: not worth decoding (most files stop here), where the masked text
        # cannot match without it either: no required literal meets a mask, or masking leaves this file alone
        if lacking and self.needles_decide:
            return False
        masked_only = self.meets_mask and self.ws.redactor.may_mask(raw)
        if lacking and not masked_only:
            return False
        budget = Budget(query)
        try:
            try:
                text = decode_or_legacy(raw, found.rel)[0]  # as /open shows it: Latin-1 and cp1252 too
            except StringError:
                if _raw_hit(self.ws, raw, query, budget):
                    self.counts.non_utf8 += 1  # as rg would find it, in the text as it would be shown
                return False
            first = None
            if not masked_only and query.text is not None:
                first = budget.search(query.text, text)
                if first is None:
                    return False
            room = self.limit - self.counts.matches
            before = len(self.lines)
            shown, more = _search(self.ws, found.rel, text, query, budget, self.context, room, self.lines, first)
        except RegexTimeout:
            raise timeout_error(query.source, found.rel) from None
        if shown:
            self.counts.files += 1
            self.counts.matches += sum(1 for line in self.lines[before:] if line.match)
        if more:
            self.truncated = True
            self.stats.limit_reason = "results"
        return more

    def _read(self, found: Found) -> bytes | None:
        """The file's bytes, read once; None when it changed since the walk, is unreadable, or is not searched
        (`admit`). Opened in the walk's folder with O_NOFOLLOW and checked to be a regular file (the walk's own
        file when the walk statted it: walk.open_found, inline here as it runs for every file)."""
        try:
            fd = os.open(found.name, FILE_FLAGS, dir_fd=found.dir_fd)
        except OSError:
            self.stats.skipped_io_errors += 1
            return None
        try:
            st = os.fstat(fd)
            walked = found.st
            if not S_ISREG(st.st_mode) or (walked is not None and (st.st_dev, st.st_ino) != (walked.st_dev,
                                                                                               walked.st_ino)):
                self.stats.skipped_io_errors += 1
                return None
            limit = self.max_bytes
            if walked is None:  # walked without a stat: this is the first look at the file
                if (st.st_size > limit or st.st_nlink > 1) and not self.admit(st):
                    return None
            elif st.st_size > limit or (st.st_nlink > 1 and not self.hardlinks):
                self.stats.skipped_io_errors += 1  # changed since the walk looked
                return None
            raw = os.read(fd, st.st_size + 1)  # one read for a file that did not grow
            if len(raw) > st.st_size:
                chunks = [raw]
                size = len(raw)
                while size <= limit and (chunk := os.read(fd, 1 << 20)):
                    chunks.append(chunk)
                    size += len(chunk)
                if size > limit:
                    self.stats.skipped_io_errors += 1
                    return None
                raw = b"".join(chunks)
            return raw
        except OSError:
            self.stats.skipped_io_errors += 1
            return None
        finally:
            os.close(fd)


def _raw_hit(ws: Workspace, raw: bytes, query: Query, budget: Budget) -> bool:
    """Whether a file that is not text (binary, or not what its BOM says) holds a match, in its text masked as any
    text is (a count must not tell of a match inside a secret either)."""
    text = ws.redact_lines(raw.decode("utf-8", "surrogateescape"))
    if query.text is not None:
        return budget.search(query.text, text) is not None
    return any(budget.search(query.line, line) is not None for line in BREAK.split(text))


def _search(ws: Workspace, rel: str, text: str, query: Query, budget: Budget, context: int, room: int,
            out: list[GrepLine], first: Any = None) -> tuple[bool, bool]:
    """Append the file's matching lines (and context) to `out`: (any appended, more matched than `room`). `first`:
    the text's first match, found already (taken only when masking left the text as it was)."""
    redacted = ws.redact_lines(text)
    found = hit_lines(redacted, query, budget, room + 1, first if redacted is text else None)
    lines: list[str] | None = None
    if found is None or context:
        lines = BREAK.split(redacted)
        if lines[-1] == "":
            lines.pop()  # the empty piece after a final line break is not a line
        if found is None:
            found = [(index, line) for index, line in enumerate(lines)
                     if budget.search(query.line, line) is not None][:room + 1]
    over = len(found) > room
    found = found[:room]
    if not found:
        return False, over
    max_bytes = ws.policy.limits.max_line_bytes
    if lines is None:
        for index, line in found:
            clipped, cut = _clip(line, max_bytes)
            out.append(GrepLine(rel, index + 1, clipped, cut, True))
        return True, over
    wanted: dict[int, bool] = {}
    for index, _ in found:
        for near in range(max(0, index - context), min(len(lines), index + context + 1)):
            wanted.setdefault(near, False)
        wanted[index] = True
    for index in sorted(wanted):
        clipped, cut = _clip(lines[index], max_bytes)
        out.append(GrepLine(rel, index + 1, clipped, cut, wanted[index]))
    return True, over


def hit_lines(text: str, query: Query, budget: Budget, most: int, first: Any = None
              ) -> list[tuple[int, str]] | None:
    """Up to `most` (index, line) pairs of the lines holding a match, found by searching the whole text and
    splitting out only the lines hit; None when that cannot stand for matching line by line: a pattern with
    anchors (`query.text` is None), or a match that is empty or touches a line break (the caller then matches
    line by line, the reference). A non-empty match between two breaks is a match of its line: without anchors
    or lookaround only the matched characters and their neighbours count, and a break and a line's end are both
    non-word characters to \\b. `first`: the first match in `text` (`query.text`'s search from 0), when found
    already."""
    pattern = query.text
    if pattern is None:
        return None
    hits: list[tuple[int, str]] = []
    size = len(text)
    pos = line = 0
    while len(hits) < most:
        match = first if first is not None else budget.search(pattern, text, pos)
        first = None
        if match is None:
            break
        start, end = match.span()
        if start == end or "\n" in match.group() or "\r" in match.group():
            return None
        # every break between pos (a line start) and the match is whole: none ends inside the match
        line += text.count("\n", pos, start) + text.count("\r", pos, start) - text.count("\r\n", pos, start)
        begin = max(text.rfind("\n", pos, start), text.rfind("\r", pos, start), pos - 1) + 1
        after = BREAK.search(text, end)
        stop = after.start() if after is not None else size
        hits.append((line, text[begin:stop]))
        if after is None:
            break
        pos = after.end()
        line += 1
    return hits


def _clip(line: str, max_bytes: int) -> tuple[str, bool]:
    encoded = line.encode("utf-8", "surrogatepass")
    if len(encoded) <= max_bytes:
        return line, False
    return encoded[:max_bytes].decode("utf-8", "ignore"), True
