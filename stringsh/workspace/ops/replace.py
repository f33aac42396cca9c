"""replace: the one exact-text editor every dialect uses (String Commands' `/replace`, the JSON tools' `edit`, MCP's
`edit_file`, OPERATOR_CMD's `replaceFirst`/`replaceAll`/`insertAfter`/`insertBefore`).

Text is the file's decoded text with its own line endings (textio's model). A line break in the old text matches
any one of the file's (`\\r\\n`, `\\r`, `\\n`, each whole), so an old text copied from a read (which shows `\\n`)
finds its lines in a CRLF or mixed file; the new text takes the line ending of the region it replaces, so a
CRLF file stays CRLF and bytes outside the region never change. Matches are counted honestly: every position
the old text starts at counts, so `foo\\nfoo\\n` inside `foo\\nfoo\\nfoo\\n` is two (ambiguous).

A refusal is a `Refused` with a kind (`not_found`, `ambiguous`, `overlap`) and the matches: each dialect words it
in its own shape. `replace_in_file` is the engine operation: read, replace, encode back through textio (encoding,
BOM, endings and final newline kept; a character the encoding cannot hold is an ENCODING error) and apply as one
journalled change guarded by the hash of the bytes read.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal, NamedTuple

from stringsh.errors import StringError
from stringsh.workspace.textio import BREAK, splice

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace
    from stringsh.workspace.ops.read import TextFile

#: One line break of the file, never half of a `\r\n`.
ANY_BREAK = r"(?:\r\n|\r(?!\n)|(?<!\r)\n)"
#: "one": exactly one match; "first": the first of any; "all": every match (matches that overlap are refused).
Mode = Literal["one", "first", "all"]
Kind = Literal["not_found", "ambiguous", "overlap"]
Span = tuple[int, int]


class Refused(Exception):
    """Why an exact replacement cannot be made; the dialect turns it into its own reply."""

    def __init__(self, kind: Kind, matches: list[Span]) -> None:
        super().__init__(kind)
        self.kind = kind
        self.matches = matches


class Replaced(NamedTuple):
    text: str  # the new text, in the file's own line endings
    count: int  # replacements made
    matches: list[Span]  # where in the old text


def find_all(text: str, old: str) -> list[Span]:
    """(start, end) of every match of `old` in `text`, overlapping ones included, in order. `old` may be written
    with `\\n` or with the file's own breaks: each break in it matches any one break of the file."""
    if "\n" not in old and "\r" not in old:
        found, at = [], text.find(old)
        while at != -1:
            found.append((at, at + len(old)))
            at = text.find(old, at + 1)
        return found
    pattern = re.compile("(?=(" + ANY_BREAK.join(re.escape(part) for part in BREAK.split(old)) + "))")
    return [(m.start(1), m.end(1)) for m in pattern.finditer(text)]


def overlapping(matches: list[Span]) -> bool:
    return any(b[0] < a[1] for a, b in itertools.pairwise(matches))


def chosen(text: str, old: str, mode: Mode) -> list[Span]:
    """The matches `mode` replaces; Refused when there are none, or more than "one" allows, or "all" overlap."""
    matches = find_all(text, old)
    if not matches:
        raise Refused("not_found", matches)
    if mode == "first":
        return matches[:1]
    if len(matches) > 1 and mode == "one":
        raise Refused("ambiguous", matches)
    if overlapping(matches):
        raise Refused("overlap", matches)
    return matches


def replace_matches(text: str, matches: list[Span], new: str) -> str:
    """`text` with each (non-overlapping) match replaced by `new`, which takes the ending of the region it
    replaces (a `new` written with `\\r` is kept as given)."""
    for start, end in reversed(matches):
        text = splice(text, start, end, new)
    return text


def replace(text: str, old: str, new: str, mode: Mode = "one") -> Replaced:
    """One exact replacement on decoded text; Refused says why it cannot be made."""
    matches = chosen(text, old, mode)
    return Replaced(replace_matches(text, matches, new), len(matches), matches)


class ReplaceRequest(NamedTuple):
    path: str
    #: (old, new) pairs applied in order, each to the result of the one before; all or nothing.
    pairs: tuple[tuple[str, str], ...]
    mode: Mode = "one"
    topic: str = "main"
    #: The sha256 the caller read the file as; a file that changed since is a CONFLICT (None: the bytes read here).
    expected_sha256: str | None = None


class ReplaceOutcome(NamedTuple):
    rel: str
    before: str  # the file's text as read
    text: str  # the file's new text
    count: int  # replacements made, over all pairs
    change_id: int
    sha256: str
    before_sha256: str  # of the bytes read


class PairRefused(Refused):
    """A `Refused` of the `index`-th pair (0-based) of a request; `text` is the text its matches are in."""

    def __init__(self, index: int, refused: Refused, text: str = "") -> None:
        super().__init__(refused.kind, refused.matches)
        self.index = index
        self.text = text


def replace_all_pairs(text: str, pairs: tuple[tuple[str, str], ...], mode: Mode,
                      check: Callable[[str, str], None] | None = None) -> tuple[str, int]:
    """Every pair applied in order; PairRefused names the pair that could not be applied. `check(replaced,
    new)` sees each pair's replaced regions (joined) and what replaces them."""
    count = 0
    for index, (old, new) in enumerate(pairs):
        try:
            done = replace(text, old, new, mode)
        except Refused as exc:
            raise PairRefused(index, exc, text) from None
        if check is not None:
            check("".join(text[start:end] for start, end in done.matches), new * len(done.matches))
        text, count = done.text, count + done.count
    return text, count


def replace_in_file(ws: Workspace, request: ReplaceRequest) -> ReplaceOutcome:
    """Replace exact text as one journalled change; needs `write` and `edit` (an in-place change of a file).
    The journal is imported here: the pure editor above is loaded by commands that never write."""
    from stringsh.workspace.guards import NO_GUARD, WholeFile, refuse_mask_writeback
    from stringsh.workspace.ops.inplace import rewrite

    counted: list[int] = []

    def change(current: TextFile) -> str:
        def check(replaced: str, new: str) -> None:  # the regions replaced, not the file: a mask elsewhere is fine
            refuse_mask_writeback(ws, current.rel, replaced, new)

        text, count = replace_all_pairs(current.text, request.pairs, request.mode, check)
        counted.append(count)
        return text

    def stale(rel: str) -> StringError:
        return StringError("CONFLICT", f"Refusing to edit {rel}: it changed since it was read.",
                           f"Read {rel} again, then retry.")

    # recorded as "apply", as every other change set: the audit trail reads the same whichever editor made it
    guard = NO_GUARD if request.expected_sha256 is None else WholeFile(request.expected_sha256)
    done = rewrite(ws, request.path, request.topic, "apply", guard, change, stale, body_checked=True)
    return ReplaceOutcome(done.current.rel, done.current.text, done.text, counted[0], done.change_id, done.sha256,
                          done.current.sha256)
