"""Exact substring replacement for `/replace` (String's newer command, docs/string-commands.md): body `old\\n---\\nnew`.

Matches are counted honestly: every position the old text starts at counts, so `foo\\nfoo\\n` inside
`foo\\nfoo\\nfoo\\n` is two matches (ambiguous), where a non-overlapping scan would see one (docs/hazards.md).
A line break in the old text matches any of the file's (`\\r\\n`, `\\r`, `\\n`, each whole), so an old text typed
with `\\n` finds its lines in a CRLF file; the new text takes the line ending of the region it replaces.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from typing import NamedTuple

from stringsh.errors import StringError
from stringsh.workspace.textio import BREAK, splice

#: One line break of the file, never half of a `\r\n`.
ANY_BREAK = r"(?:\r\n|\r(?!\n)|(?<!\r)\n)"
#: Matches listed in an ambiguity refusal, and the characters shown on each side (String's `ambiguityPreview`).
PREVIEWS = 3
AROUND = 40


class Pair(NamedTuple):
    old: str
    new: str


def split_body(body: str) -> Pair | None:
    """(old, new) around the first line that is `---` (spaces around it allowed); None without one. Lines are the
    shared model's: the body's final line break (a heredoc always has one) starts no line."""
    lines = BREAK.split(body)
    if lines and lines[-1] == "" and len(lines) > 1:
        lines.pop()
    for i, line in enumerate(lines):
        if line.strip() == "---":
            return Pair("\n".join(lines[:i]), "\n".join(lines[i + 1 :]))
    return None


def find_all(text: str, old: str) -> list[tuple[int, int]]:
    """(start, end) of every match of `old` in `text`, overlapping ones included, in order."""
    if "\n" not in old:
        found, at = [], text.find(old)
        while at != -1:
            found.append((at, at + len(old)))
            at = text.find(old, at + 1)
        return found
    pattern = re.compile("(?=(" + ANY_BREAK.join(re.escape(part) for part in old.split("\n")) + "))")
    return [(m.start(1), m.end(1)) for m in pattern.finditer(text)]


def overlapping(matches: list[tuple[int, int]]) -> bool:
    return any(b[0] < a[1] for a, b in itertools.pairwise(matches))


def preview(text: str, matches: list[tuple[int, int]], mask: Callable[[str], str]) -> str:
    """`- ...<40 chars>old<40 chars>...` for the first three matches, line breaks as `\\n`. The lines around a
    snippet are masked first: a snippet that would cut through a secret is shown from its masked lines."""
    out = []
    for start, end in matches[:PREVIEWS]:
        lo, hi = max(0, start - AROUND), min(len(text), end + AROUND)
        line_lo = max(text.rfind("\n", 0, lo), text.rfind("\r", 0, lo)) + 1
        newline = BREAK.search(text, hi)
        line_hi = newline.start() if newline else len(text)
        lines = text[line_lo:line_hi]
        masked = mask(lines)
        snippet = text[lo:hi] if masked == lines else masked
        out.append("- ..." + snippet.replace("\r", "\\r").replace("\n", "\\n") + "...")
    return "\n".join(out)


def replace_matches(text: str, matches: list[tuple[int, int]], new: str) -> str:
    """`text` with each (non-overlapping) match replaced by `new`, which takes the ending of the region it replaces."""
    for start, end in reversed(matches):
        text = splice(text, start, end, new)
    return text


def ambiguous(path: str, count: int, listed: str) -> StringError:
    return StringError(
        "CONFLICT",
        f"Old text matched {count} times in {path}; refusing ambiguous replace.",
        "Use /replace <path> --all to replace every occurrence, or provide a larger unique old text.\n"
        f"Matches:\n{listed}",
    )


def overlap_refused(path: str, count: int, listed: str) -> StringError:
    return StringError(
        "CONFLICT",
        f"Old text matched {count} times in {path} and the matches overlap; --all cannot replace each of them.",
        f"Provide a larger unique old text, or replace lines: /replace {path}:L3-L4 (see /edit {path}).\n"
        f"Matches:\n{listed}",
    )
