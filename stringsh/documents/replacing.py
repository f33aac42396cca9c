"""`/replace` (docs/string-commands.md): the words around the engine's exact-replace editor
(workspace/ops/replace.py): the body `old\\n---\\nnew`, the ambiguity preview and the refusals. Matching and
replacing are the engine's, shared by every dialect."""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from stringsh.errors import StringError
from stringsh.hints import command_word
from stringsh.workspace import BREAK

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
        f"Provide a larger unique old text, or replace lines: /replace {command_word(path)}:L3-L4 "
        f"(see /edit {command_word(path)}).\n"
        f"Matches:\n{listed}",
    )
