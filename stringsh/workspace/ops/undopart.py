"""Taking back one change's part of a file that later changes edited elsewhere (`/undo` of a block edit, a replace,
a line range or a patch while other clients kept editing other parts of the same file).

The change turned `prev` into `new`; the file now holds `now`. Each run of lines the change wrote is found in `now`
by aligning `new` with `now` line by line (difflib, no junk heuristics): when every such run is still there,
untouched, it is put back to the lines it replaced and every other line of `now` stays as it is. When a later
change touched any of those lines, there is no part to take back alone: None, and the caller refuses (CONFLICT).
Lines keep their own endings (bytes are split after `\\n`, `\\r\\n` or a lone `\\r`), so nothing else changes by a
byte. Text that is not ASCII-compatible (UTF-16, a NUL byte) is not split into lines: None.
"""

from __future__ import annotations

from collections.abc import Sequence
from difflib import SequenceMatcher
from typing import TypeVar

Line = TypeVar("Line", str, bytes)


def take_back_lines(prev: Sequence[Line], new: Sequence[Line], now: Sequence[Line]) -> list[Line] | None:
    """`now` with each run of lines `prev` -> `new` changed put back, or None when a later change touched one."""
    hunks = [op for op in SequenceMatcher(None, prev, new, autojunk=False).get_opcodes() if op[0] != "equal"]
    blocks = [b for b in SequenceMatcher(None, new, now, autojunk=False).get_matching_blocks() if b.size]
    out = list(now)
    for _tag, i1, i2, j1, j2 in reversed(hunks):
        at = _where(blocks, j1, j2)
        if at is None:
            return None
        out[at : at + (j2 - j1)] = prev[i1:i2]
    return out


def _where(blocks: list, j1: int, j2: int) -> int | None:
    """Where lines j1..j2 of `new` stand in `now`, all inside one run found unchanged; a change that only removed
    lines (j1 == j2) needs the place between two lines to be inside or at the edge of such a run."""
    for a, b, size in blocks:
        if a <= j1 and j2 <= a + size and (j2 > j1 or size):
            return b + (j1 - a)
    return None


def take_back(prev: bytes, new: bytes, now: bytes) -> bytes | None:
    """The bytes of `now` with the change's lines put back (module docstring), or None."""
    if b"\x00" in prev or b"\x00" in new or b"\x00" in now:
        return None
    done = take_back_lines(prev.splitlines(keepends=True), new.splitlines(keepends=True),
                           now.splitlines(keepends=True))
    return None if done is None else b"".join(done)
