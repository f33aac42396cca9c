"""Where a Codex patch's lines stand in a file, found as Codex finds them (docs/apply-patch.md).

Codex looks for a chunk's `@@` line and its context and removed lines exactly first, then with trailing whitespace
ignored, then with all surrounding whitespace ignored, then with common Unicode punctuation folded (dashes, quotes,
non-breaking and other wide spaces), because models write a method's `@@ def f():` line without its indentation
and retype `—` as `-`. stringsh does the same, with one guard Codex lacks: a relaxed match must be the only one
after the cursor (two are refused, naming them), since a guess between two places could change the wrong one. A
search is one pass per level over the file's lines as numbers (Knuth-Morris-Pratt), linear in the file and chunk;
a refusal says what was looked for, from where, and where the nearest candidate stands.
"""

from __future__ import annotations

import difflib
from collections import Counter
from typing import TYPE_CHECKING

from stringsh.workspace.hunks import PatchFailed

if TYPE_CHECKING:
    from collections.abc import Callable

#: Work done locating chunks: "compared" counts lines looked at (tests prove the search linear by counting).
WORK: Counter[str] = Counter()

_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212"
_SINGLE = "\u2018\u2019\u201a\u201b"
_DOUBLE = "\u201c\u201d\u201e\u201f"
_SPACES = "\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000"
PUNCTUATION = str.maketrans({**dict.fromkeys(_DASHES, "-"), **dict.fromkeys(_SINGLE, "'"),
                             **dict.fromkeys(_DOUBLE, '"'), **dict.fromkeys(_SPACES, " ")})
#: How each level compares a line, for refusals ("matches 2 places with trailing whitespace ignored").
LEVELS = ("exactly", "with trailing whitespace ignored", "with surrounding whitespace ignored",
          "with whitespace and Unicode punctuation folded")
RELAXED = "exactly or with whitespace and Unicode punctuation relaxed"
#: Places a refusal names at most; starts and distinct lines the nearest-candidate search weighs.
SHOWN_PLACES, WEIGHED, CLOSE_CANDIDATES = 5, 200, 20_000


def fold(level: int, line: str) -> str:
    """`line` as level `level` compares it."""
    if level == 0:
        return line
    if level == 1:
        return line.rstrip()
    stripped = line.strip()
    return stripped if level == 2 else stripped.translate(PUNCTUATION).strip()


class Lines:
    """A file's lines as small numbers (equal lines, equal numbers), so a chunk is found by one pass over the file
    from the cursor (Knuth-Morris-Pratt over the numbers), never by comparing slices at every offset: a 60 KB chunk
    against 200,000 lines costs the sum of their lengths, not the product."""

    def __init__(self, old: list[str]) -> None:
        self.numbers: dict[str, int] = {}
        self.seq = [self.numbers.setdefault(line, len(self.numbers)) for line in old]

    def find_all(self, want: list[str], start: int, at_end: bool, limit: int) -> list[int]:
        """Up to `limit` indexes >= start where `want` stands (at the end only, with `at_end`)."""
        seq = self.seq
        pattern = [self.numbers.get(line, -1) for line in want]
        WORK["compared"] += len(pattern)
        if at_end:
            index = len(seq) - len(pattern)
            return [index] if index >= start and seq[index:] == pattern else []
        if -1 in pattern:
            return []  # a line the file does not hold
        if not pattern:
            return [start] if start <= len(seq) else []
        fallback = _failure(pattern)
        found: list[int] = []
        matched = 0
        for index in range(start, len(seq)):
            number = seq[index]
            while matched and pattern[matched] != number:
                matched = fallback[matched - 1]
            if pattern[matched] == number:
                matched += 1
                if matched == len(pattern):
                    found.append(index + 1 - matched)
                    if len(found) >= limit:
                        WORK["compared"] += index + 1 - start
                        return found
                    matched = fallback[matched - 1]
        WORK["compared"] += max(0, len(seq) - start)
        return found


def _singular(what: str) -> bool:
    """Whether a refusal's subject is one line (`its line '@@ …'`) rather than a chunk's lines."""
    return what.endswith("'")


def _failure(pattern: list[int]) -> list[int]:
    """KMP's table: for each prefix, the length of its longest proper prefix that is also its suffix."""
    table = [0] * len(pattern)
    length = 0
    for index in range(1, len(pattern)):
        while length and pattern[index] != pattern[length]:
            length = table[length - 1]
        if pattern[index] == pattern[length]:
            length += 1
        table[index] = length
    return table


class Matcher:
    """One file's lines, numbered per level on first need, and the searches and refusals of its chunks.
    `quote(index)` is the file's line as a refusal may show it (masked), `mask` the patch's own line."""

    def __init__(self, old: list[str], rel: str, quote: Callable[[int], str], mask: Callable[[str], str]) -> None:
        self.old, self.rel, self.quote, self.mask = old, rel, quote, mask
        self._levels: dict[int, Lines] = {}

    def lines(self, level: int) -> Lines:
        if level not in self._levels:
            self._levels[level] = Lines([fold(level, line) for line in self.old])
        return self._levels[level]

    def seek(self, want: list[str], start: int, at_end: bool, what: str) -> int:
        """Where `want` stands from `start`: the first exact match, else the only relaxed one. PatchFailed naming
        the places when a relaxed level matches more than one; -1 when no level matches."""
        for level in range(len(LEVELS)):
            folded = [fold(level, line) for line in want]
            found = self.lines(level).find_all(folded, start, at_end, 1 if level == 0 else SHOWN_PLACES + 1)
            if level == 0 and found:
                return found[0]
            if len(found) == 1:
                return found[0]
            if found:
                places = ", ".join(str(index + 1) for index in found[:SHOWN_PLACES])
                more = " and more" if len(found) > SHOWN_PLACES else ""
                verb = "matches" if _singular(what) else "match"
                raise PatchFailed(self.rel, f"{what} {verb} nothing exactly and more than one place {LEVELS[level]} "
                                  f"(lines {places}{more}); a relaxed match must be the only one. "
                                  "Add a context line that tells them apart.", 1, 0)
        return -1

    def refuse(self, what: str, want: list[str], start: int, at_end: bool, after: str) -> PatchFailed:
        """The refusal of lines no level found: what was looked for, from where, and the nearest candidate."""
        where = " at the end of the file" if at_end else after
        verb = "is" if _singular(what) else "are"
        return PatchFailed(self.rel, f"{what} {verb} not in the file{where}, {RELAXED}{self._nearest(want, start)}.",
                           1, 0)

    def _nearest(self, want: list[str], start: int) -> str:
        """Where the lines stand before the cursor, else the place matching most of their first lines, else the
        line most like their first one; "" when nothing is near."""
        loosest = len(LEVELS) - 1
        folded = [fold(loosest, line) for line in want]
        lines = self.lines(loosest)
        earlier = lines.find_all(folded, 0, False, 1)
        if earlier and earlier[0] < start:
            return f"; it stands at line {earlier[0] + 1}, before that (chunks come in the file's order)"
        if earlier:
            return f"; it stands at line {earlier[0] + 1}, not at the end of the file"
        seq, first = lines.seq, lines.numbers.get(folded[0], -1)
        best, best_at = 0, -1
        weighed = 0
        for index, number in enumerate(seq):
            if number != first:
                continue
            weighed += 1
            run = 0
            while run < len(folded) and index + run < len(seq) and seq[index + run] == lines.numbers.get(
                    folded[run], -1):
                run += 1
            WORK["compared"] += run + 1
            if run > best:
                best, best_at = run, index
            if weighed >= WEIGHED:
                break
        WORK["compared"] += len(seq)
        if best_at >= 0 and best < len(want):
            differs = best_at + best
            theirs = repr(self.quote(differs)[:80]) if differs < len(self.old) else "the end of the file"
            return (f"; the nearest is line {best_at + 1}, where its first {best} of {len(want)} lines match, then "
                    f"line {differs + 1} reads {theirs} where the patch has {self.mask(want[best])[:80]!r}")
        candidates = list(lines.numbers)[:CLOSE_CANDIDATES]
        close = difflib.get_close_matches(folded[0], candidates, n=1, cutoff=0.6) if folded[0] else []
        if not close:
            return ""
        index = seq.index(lines.numbers[close[0]])
        return f"; the nearest to its first line is line {index + 1}: {self.quote(index)[:80]!r}"
