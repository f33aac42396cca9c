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
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.workspace.paths import STATE_DIR, TEMP_PREFIX

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace


class PathScreen:
    """`suspects(text)`: the paths of a NUL-separated listing that need the one-by-one checks."""

    __slots__ = ("lowered", "raw")

    def __init__(self, ws: Workspace) -> None:
        denied = ws.confiner.matcher.deny.literals()
        masked = ws.redactor.path_literals()
        #: Looked for as they are (masking's literals: case counts, and an upper-case one is soon passed over)
        self.raw: tuple[str, ...] | None = None if masked is None else _fewest(masked)
        #: Looked for in the lowered text (the deny globs ignore case)
        self.lowered: tuple[str, ...] | None = None
        if denied is not None:
            self.lowered = _fewest((*denied, TEMP_PREFIX.lower(), ".git", STATE_DIR.lower()))

    def suspects(self, text: str) -> set[str] | None:
        """The paths of `text` (NUL between them) holding one of the strings; None when every path is one."""
        if self.raw is None or self.lowered is None:
            return None
        low = text.lower()
        if len(low) != len(text):
            return None  # a character lowered to several: positions in `low` are not those in `text`
        found: set[str] = set()
        for literal in self.raw:
            _paths_holding(text, text, literal, found)
        for literal in self.lowered:
            _paths_holding(text, low, literal, found)
        return found


def _fewest(literals: tuple[str, ...]) -> tuple[str, ...]:
    """The literals but those holding another: a path holding `.env.local` holds `.env`."""
    unique = set(literals)
    return tuple(sorted(text for text in unique if not any(other != text and other in text for other in unique)))


def _paths_holding(text: str, searched: str, literal: str, found: set[str]) -> None:
    """Add to `found` each path of `text` in which `searched` (the text, or its lowered form) holds `literal`."""
    at = searched.find(literal)
    while at >= 0:
        start = text.rfind("\0", 0, at) + 1
        end = text.find("\0", at)
        if end < 0:
            end = len(text)
        found.add(text[start:end])
        at = searched.find(literal, end)
