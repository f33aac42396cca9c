"""A screen over a whole listing of paths at once (glob's rg engine, 50k paths a run): the few strings one of which a
path must hold for any check of the walk's to hide or change it, searched for once in the listing's text, so only
the paths holding one are checked one by one (rgwalk.Visible and the masking, exactly as before) and the rest pass
as they are.

Those strings: each literal run of the secret deny globs (globs.GlobSet.literals; a denied folder's name or path
holds one too), each built-in literal masking looks for (redact.Redactor.path_literals), `.git`, `.stringsh` and
the temp-file prefix. All are looked for in the lowered text (the deny globs ignore case; a literal masking looks
for as is is also there lowered), so a path holding none of them is neither denied, nor below a denied, `.git`,
`.stringsh` or temp folder, nor a temp file, nor changed by masking. When that cannot be said (a deny glob without
a literal run, a policy pattern of its own for masking, a name whose lowering changes its length) every path is a
suspect: the screen only ever saves work.

A string is searched for only when the listing holds each of its characters: whether it holds one is a scan at
memchr's pace that stops where it finds it, where each substring search costs some thirty times a missing
character's scan (a listing with no upper-case letter skips every upper-case string; the bench tree's names, of
`pkg`, `mod`, `m`, digits and `.py`, every string but `.p12`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.workspace.paths import STATE_DIR, TEMP_PREFIX

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace


class PathScreen:
    """`suspects(text)`: the paths of a NUL-separated listing that need the one-by-one checks."""

    __slots__ = ("chars", "chars_low", "dotted", "dotted_chars", "lowered", "lowered_chars", "raw", "raw_chars")

    def __init__(self, ws: Workspace) -> None:
        denied = ws.confiner.matcher.deny.literals()
        masked = ws.redactor.path_literals()
        #: Looked for as they are (masking's literals: case counts, and an upper-case one is soon passed over)
        self.raw: tuple[str, ...] | None = None if masked is None else _fewest((), masked)[1]
        #: Looked for in the lowered text (the deny globs ignore case): `dotted`, those held at the start of a name
        #: and starting with a dot, at each `/.` and NUL-dot alone (one search for all of them); `lowered` anywhere
        self.dotted: tuple[str, ...] = ()
        self.lowered: tuple[str, ...] | None = None
        if denied is not None:
            starts, anywhere = _fewest((*denied[0], TEMP_PREFIX.lower(), ".git", STATE_DIR.lower()), denied[1])
            self.dotted = tuple(text for text in starts if text.startswith("."))
            self.lowered = (*(text for text in starts if not text.startswith(".")), *anywhere)
        #: Each string with its characters, and all of those characters: a string is searched for only when the
        #: listing holds each of its characters (upper case included, for those looked for lowered)
        self.raw_chars = tuple((text, frozenset(text)) for text in self.raw or ())
        self.lowered_chars = tuple((text, frozenset(text)) for text in self.lowered or ())
        self.dotted_chars = tuple((text, frozenset(text)) for text in self.dotted)
        self.chars_low = frozenset().union(*(chars for _, chars in (*self.lowered_chars, *self.dotted_chars)))
        self.chars = frozenset().union(*(chars for _, chars in self.raw_chars), self.chars_low,
                                       (char.upper() for char in self.chars_low))

    def suspects(self, text: str) -> set[str] | None:
        """The paths of `text` (NUL between them) holding one of the strings; None when every path is one."""
        if self.raw is None or self.lowered is None:
            return None
        low = None if text.isascii() else text.lower()  # isascii: a flag CPython keeps, no scan
        if low is not None and len(low) != len(text):
            return None  # a character lowered to several: positions in `low` are not those in `text`
        held = {char for char in self.chars if char in text}
        found: set[str] = set()
        for literal, chars in self.raw_chars:
            if chars <= held:
                _paths_holding(text, text, literal, found)
        if low is None:  # ASCII lowers only A-Z: a character is in the lowered text where it or its upper case is
            held_low = {char for char in self.chars_low if char in held or char.upper() in held}
        else:
            held_low = {char for char in self.chars_low if char in low}
        lowered = [literal for literal, chars in self.lowered_chars if chars <= held_low]
        dotted = tuple(literal for literal, chars in self.dotted_chars if chars <= held_low)
        if not lowered and not dotted:
            return found
        if low is None:
            low = text.lower()  # ASCII: the same length
        for literal in lowered:
            _paths_holding(text, low, literal, found)
        if dotted:
            if low.startswith(dotted):
                found.add(text[:_end(text, 0)])
            for gate in ("/.", "\0."):
                at = low.find(gate)
                while at >= 0:
                    if low.startswith(dotted, at + 1):  # `at` is the `/` or NUL before the name
                        found.add(text[text.rfind("\0", 0, at + 1) + 1:_end(text, at + 1)])
                    at = low.find(gate, at + 1)
        return found


def _fewest(starts: tuple[str, ...], anywhere: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The literals but those a path cannot hold without holding another: `.env.local` anywhere holds `.env`; at a
    name's start only a literal found anywhere, or one it starts with, found at a name's start, stands for it."""
    everywhere = set(anywhere)
    kept_anywhere = {text for text in everywhere if not any(o != text and o in text for o in everywhere)}
    at_start = set(starts) - everywhere
    kept_starts = {text for text in at_start if not any(o in text for o in kept_anywhere)
                   and not any(o != text and text.startswith(o) for o in at_start)}
    return tuple(sorted(kept_starts)), tuple(sorted(kept_anywhere))


def _end(text: str, at: int) -> int:
    """Where the path holding position `at` ends."""
    end = text.find("\0", at)
    return len(text) if end < 0 else end


def _paths_holding(text: str, searched: str, literal: str, found: set[str]) -> None:
    """Add to `found` each path of `text` in which `searched` (the text, or its lowered form) holds `literal`."""
    at = searched.find(literal)
    while at >= 0:
        end = _end(text, at)
        found.add(text[text.rfind("\0", 0, at) + 1:end])
        at = searched.find(literal, end)
