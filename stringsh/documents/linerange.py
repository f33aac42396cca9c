"""`path:L5` and `path:L3-L4`: line targets, as String's `/replace` parses them (`^(.*):L(\\d+)(?:-L?(\\d+))?$`).

Shared by `/replace` (replace those lines) and the line-range views of `/open` and `/edit`. A suffix that looks like
a line target but is not one (`:L0`, `:L5-L3`, `:Lx`) is an INVALID_TARGET with the form to use, unless a file
of that whole name exists.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from stringsh.errors import Hint, StringError
from stringsh.lazyexports import lazy_pattern

STRICT = lazy_pattern(r"^(.+):L(\d+)(?:-L?(\d+))?$")
#: What an attempt at a line target looks like (a file name such as `notes:Lunch.txt` has a dot, so it does not).
LOOSE = lazy_pattern(r"^(.+):L([\w+-]*)$")


class LineTarget(NamedTuple):
    path: str
    start: int  # 1-based
    end: int  # 1-based, inclusive

    @property
    def label(self) -> str:
        return f"{self.path}:{self.span}"

    @property
    def span(self) -> str:
        return f"L{self.start}" if self.end == self.start else f"L{self.start}-L{self.end}"


def parse_line_target(target: str, exists: Callable[[str], bool]) -> LineTarget | None:
    """The line target `target` names, None when it names a plain path; `exists(path)` is asked only for a
    malformed suffix (a file may really be called `x:Ly`)."""
    if ":L" not in target:  # both patterns need it (and are then compiled only when a target could be one)
        return None
    match = STRICT.match(target)
    if match:
        start = int(match.group(2))
        end = int(match.group(3)) if match.group(3) else start
        found = LineTarget(match.group(1), start, end)
        if start < 1 or end < start:
            fixed = LineTarget(found.path, max(1, min(start, end)), max(1, start, end))
            raise StringError("INVALID_TARGET", f"Invalid line range: L{start}-L{end}",
                              f"Lines count from 1 and a range runs upward, as in {fixed.label}.")
        return found
    loose = LOOSE.match(target)
    if loose and not exists(target):
        path = loose.group(1)
        raise StringError("INVALID_TARGET", f"Invalid line range: {target}",
                          f"Name lines as {path}:L5 or {path}:L3-L4 (1-based, inclusive).")
    return None


def out_of_bounds(target: LineTarget, total: int, hint: str | Hint) -> StringError:
    """String's wording for a range past the file's last line."""
    return StringError("INVALID_TARGET", f"Line range out of bounds: {target.label} (file has {total} lines)", hint)
