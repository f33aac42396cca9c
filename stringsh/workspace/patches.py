"""The change-set API's `Hunk` and `Patch` (docs/change-sets.md), and the checks of their shape that need no file
(`ChangeSet.new` runs them when a change set is made; applying the hunks to a file's lines is hunks.py's). Below
models.py, so a change set checks its patches without calling up into the code that applies them."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import NamedTuple

from stringsh.errors import StringError

COUNTS_HINT = "Make the @@ header count the hunk's lines (context and removed: old; context and added: new), or make " \
              "the diff again (git diff, diff -u)."


@dataclass(frozen=True)
class Hunk:
    """One `@@ -old_start,old_lines +new_start,new_lines @@` hunk. `lines` is its body as a unified diff
    writes it: one line each, prefixed `' '` (context), `'-'` (removed) or `'+'` (added), and the marker
    `\\ No newline at end of file` after a line that has no line break. Applied with exact context (hunks.py)."""

    old_start: int
    old_lines: int
    new_start: int
    new_lines: int
    lines: str

    @property
    def header(self) -> str:
        return f"@@ -{self.old_start},{self.old_lines} +{self.new_start},{self.new_lines} @@"


#: What a `Patch` does to its file: change it in place, create it (it must not exist), or delete it (every line of
#: it must be among the hunks' removed lines).
PATCH_ACTIONS = ("modify", "create", "delete")


@dataclass(frozen=True)
class Patch:
    """Hunks for one file. `expected_prev_sha256`: the sha256 of the bytes the hunks were made against
    (a CONFLICT when the file holds others), "" when it must not exist; `action`: one of `PATCH_ACTIONS`."""

    path: str
    hunks: list[Hunk] | tuple[Hunk, ...] = ()
    expected_prev_sha256: str | None = None
    action: str = "modify"

    @property
    def added(self) -> int:
        return sum(_count(h.lines, "+") for h in self.hunks)

    @property
    def removed(self) -> int:
        return sum(_count(h.lines, "-") for h in self.hunks)


def _count(lines: str, prefix: str) -> int:
    return sum(1 for line in lines.split("\n") if line.startswith(prefix))


class HunkLine(NamedTuple):
    kind: str  # " " context, "-" removed, "+" added
    text: str
    final: bool  # followed by `\ No newline at end of file`: this side's last line has no line break


def label(number: int, rel: str, hunk: Hunk) -> str:
    return f"Hunk {number} of {rel} ({hunk.header})"


def parse_lines(hunk: Hunk, number: int, rel: str) -> list[HunkLine]:
    """The hunk's body as typed lines; INVALID_PAYLOAD for a line that is none, or counts the header denies.
    Parsed once for the check before the lock (`check_patches`) and the application under it (hunks.py)."""
    if type(hunk) is Hunk and type(hunk.lines) is str:  # hashable as the API builds it
        return list(_parsed(hunk, number, rel))
    return _parse_lines(hunk, number, rel)


@functools.lru_cache(maxsize=64)
def _parsed(hunk: Hunk, number: int, rel: str) -> tuple[HunkLine, ...]:
    return tuple(_parse_lines(hunk, number, rel))


def _parse_lines(hunk: Hunk, number: int, rel: str) -> list[HunkLine]:
    raw = hunk.lines.split("\n")
    if raw and raw[-1] == "":
        raw.pop()  # the body's own last line break
    lines: list[HunkLine] = []
    for item in raw:
        if item.startswith("\\"):
            if not lines or lines[-1].final:
                raise StringError("INVALID_PAYLOAD", f"{label(number, rel, hunk)} has a stray '{item.rstrip()}'.",
                                  "The marker \\ No newline at end of file follows the line it is about.")
            lines[-1] = lines[-1]._replace(final=True)
            continue
        kind = item[:1] or " "  # an empty line: a context line whose leading space an editor stripped
        if kind not in " -+":
            raise StringError(
                "INVALID_PAYLOAD",
                f"{label(number, rel, hunk)}: line {len(lines) + 1} of its body starts with {kind!r}.",
                "Each line of a hunk starts with ' ' (context), '-' (removed) or '+' (added).",
            )
        text = item[1:]
        lines.append(HunkLine(kind, text[:-1] if text.endswith("\r") else text, False))
    old = sum(1 for line in lines if line.kind != "+")
    new = sum(1 for line in lines if line.kind != "-")
    if (old, new) != (hunk.old_lines, hunk.new_lines):
        raise StringError(
            "INVALID_PAYLOAD",
            f"{label(number, rel, hunk)}: the header counts {hunk.old_lines} old and {hunk.new_lines} new lines, "
            f"the body has {old} and {new}.",
            COUNTS_HINT,
        )
    return lines


def check_patches(patches: list[Patch]) -> None:
    """Refuse a malformed list before any file is read: wrong types, unknown actions, a path twice, bad hunks."""
    seen: set[str] = set()
    for patch in patches:
        if not isinstance(patch, Patch):
            raise StringError("INVALID_PAYLOAD", f"Not a Patch: {type(patch).__name__}")
        if patch.action not in PATCH_ACTIONS:
            raise StringError("INVALID_PAYLOAD", f"Unknown patch action {patch.action!r} for {patch.path}",
                              f"Use one of: {', '.join(PATCH_ACTIONS)}.")
        key = patch.path.strip("/").removeprefix("./")
        if key in seen:
            raise StringError("INVALID_PAYLOAD", f"The change set patches {patch.path} twice; nothing was written.",
                              "Give each file once, with all its hunks in one patch.")
        seen.add(key)
        last = -1
        for number, hunk in enumerate(patch.hunks, 1):
            numbers = (hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines)
            if not isinstance(hunk, Hunk) or not all(isinstance(n, int) and n >= 0 for n in numbers):
                raise StringError("INVALID_PAYLOAD", f"Hunk {number} of {patch.path} is not a valid Hunk.",
                                  "Hunk(old_start, old_lines, new_start, new_lines, lines), numbers 0 or more.")
            parse_lines(hunk, number, patch.path)
            start = hunk_start(hunk)
            if start < last:
                raise StringError("INVALID_PAYLOAD",
                                  f"{label(number, patch.path, hunk)} overlaps or comes before the hunk above it.",
                                  "Give a file's hunks in order, each after the lines of the one before.")
            last = start + hunk.old_lines


def hunk_start(hunk: Hunk) -> int:
    """The 0-based index of the hunk's first old line (a hunk with no old lines goes after line `old_start`)."""
    return hunk.old_start if hunk.old_lines == 0 else hunk.old_start - 1
