"""The `.gitignore` rules of the confined walk (walk.py, and its check of the files ripgrep would read): a folder's
own `.gitignore` read only when it is a regular file (never through a link, at most `MAX_GITIGNORE_BYTES`),
compiled once per file (remembered by identity), and decided as git and ripgrep decide them, the deepest file with
a matching rule winning.
"""

from __future__ import annotations

import os
import re
import stat
from typing import TYPE_CHECKING, NamedTuple

from stringsh.workspace.atomic import READ_FLAGS

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

GITIGNORE = ".gitignore"
MAX_GITIGNORE_BYTES = 1 << 20
#: Compiled `.gitignore` files kept by identity (gitignore_at); past this many the memory starts again.
MAX_SPECS = 512
_SPECS: dict[tuple[int, ...], Ignore] = {}


class Ignore(NamedTuple):
    """A compiled `.gitignore`: the spec that decides, and `quick`, one regex matching every path some pattern of it
    matches (None when it cannot be built): a path it does not match is left alone by the file without asking each
    pattern in turn (most paths, and most of a walk's time in a tree with a long `.gitignore`)."""

    spec: GitIgnoreSpec
    quick: re.Pattern[str] | None


_NAMED_GROUP = re.compile(r"\(\?P<\w+>")


def _quick(spec: GitIgnoreSpec) -> re.Pattern[str] | None:
    """Every deciding pattern's regex as one alternation (named groups unnamed: they only mark directories)."""
    regexes = [pattern.regex for pattern in spec.patterns if pattern.include is not None]
    regexes = [regex for regex in regexes if regex is not None]
    if not regexes:
        return re.compile(r"(?!)")
    flags = {regex.flags for regex in regexes}
    if len(flags) != 1 or any(not isinstance(regex.pattern, str) or "(?P=" in regex.pattern for regex in regexes):
        return None
    try:
        return re.compile("|".join(f"(?:{_NAMED_GROUP.sub('(?:', regex.pattern)})" for regex in regexes),
                          flags.pop())
    except re.error:
        return None


def gitignore_at(fd: int) -> Ignore | None:
    """The folder's own `.gitignore` (a regular file, not a link), compiled; None when it has none. A file met
    before and unchanged since (same device, inode, size, modification and change time) is not read again: a
    daemon's searches compile each `.gitignore` once."""
    try:
        st = os.stat(GITIGNORE, dir_fd=fd, follow_symlinks=False)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_GITIGNORE_BYTES:
        return None
    key = _identity(st)
    spec = _SPECS.get(key)
    if spec is not None:
        return spec
    try:
        gfd = os.open(GITIGNORE, READ_FLAGS, dir_fd=fd)
    except OSError:
        return None
    try:
        st = os.fstat(gfd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_GITIGNORE_BYTES:
            return None
        text = os.read(gfd, MAX_GITIGNORE_BYTES).decode("utf-8", "replace")
    finally:
        os.close(gfd)
    from pathspec import GitIgnoreSpec  # glob and grep only

    spec = Ignore(GitIgnoreSpec.from_lines(text.splitlines()), None)
    spec = spec._replace(quick=_quick(spec.spec))
    try:
        same = _identity(os.stat(GITIGNORE, dir_fd=fd, follow_symlinks=False)) == _identity(st)
    except OSError:
        same = False
    if same:  # the name still leads to the file read: remembered by what it is
        if len(_SPECS) >= MAX_SPECS:
            _SPECS.clear()
        _SPECS[_identity(st)] = spec
    return spec


def _identity(st: os.stat_result) -> tuple[int, ...]:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def ignored(chain: list[tuple[int, Ignore]], rel: str, is_dir: bool) -> bool:
    """Whether the `.gitignore` files of this folder and those above it (below the walk's start) ignore `rel`, as
    git and ripgrep read them: the deepest file with a rule matching the path decides, so `!keep.log` in a
    subfolder re-includes what `*.log` above it ignores."""
    for cut, (spec, quick) in reversed(chain):
        path = rel[cut:] + ("/" if is_dir else "")
        if quick is not None and quick.search(path) is None:
            continue  # no pattern of this file matches the path
        include = spec.check_file(path).include
        if include is not None:
            return include
    return False
