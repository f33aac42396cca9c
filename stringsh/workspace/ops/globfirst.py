"""The first files in path order among the paths rg lists for /glob (ops/glob.py), kept while rg walks on: of every
batch only the paths sorting before the last of those kept so far are kept, so after rg ends a few thousand are
sorted, not all of them, and no path past them is made into a key or checked one by one.

Path order is `rg --sort path`'s, folder by folder: with `/` made the lowest character (NUL: no name holds one) a
path sorts right after the folder it is in (`a/x` before `a-b/x` and `a.txt`). The keys are made for a whole batch in
C calls: while no name holds a \\x01, `/` made \\x01 sorts as `/` made NUL would (and NUL separates the paths).
"""

from __future__ import annotations

import os
from itertools import islice
from operator import methodcaller
from stat import S_ISREG
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

    from stringsh.workspace.ops.rgwalk import Folders

#: Path order's key of one path: `/` made NUL.
PATH_KEY = methodcaller("replace", "/", "\0")

Item = tuple[str, int, int]  # (root-relative path, mtime in ns, size) of a match: a GlobMatch's fields


def by_path(rels: list[str]) -> Iterator[str]:
    """`rels` in PATH_KEY's order. The keys are made in a few C calls over all of them when no name holds a \\x01,
    and made back into paths a few at a time, as they are asked for: only the first are wanted."""
    if not rels:
        return
    joined = "\0".join(rels)
    if "\1" in joined:
        yield from sorted(rels, key=PATH_KEY)
        return
    keys = joined.replace("/", "\1").split("\0")
    keys.sort()
    for at in range(0, len(keys), 1024):
        yield from "\0".join(keys[at:at + 1024]).replace("\1", "/").split("\0")


class FirstByPath:
    """The `keep` first paths in path order of all those added (`add`, `add_text`), and how many were added
    (`total`). Every batch is kept whole too (as its text, no copy) for the rare reply that needs more than `keep`:
    a file refused when it is statted (changed since rg named it) is replaced by the next in order."""

    __slots__ = ("bound", "keep", "kept", "nul", "texts", "total")

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.kept: list[str] = []  # keys; sorted, and at most `keep`, whenever `bound` is set
        self.bound: str | None = None  # the last kept key once `keep` are kept
        self.nul = False  # keys with `/` made NUL (a name holds a \x01), not \x01
        self.texts: list[str] = []
        self.total = 0

    def add(self, rels: list[str]) -> None:
        if rels:
            self.add_text("\0".join(rels))

    def add_text(self, text: str) -> None:
        """Paths with a NUL between them (at least one)."""
        self.texts.append(text)
        if not self.nul and "\1" in text:
            self.nul = True  # made before: no name held a \x01, so each \x01 in them stands for a `/`
            self.kept = [key.replace("\1", "\0") for key in self.kept]
            if self.bound is not None:
                self.bound = self.bound.replace("\1", "\0")
        if self.keep == 0:
            self.total += text.count("\0") + 1
            return
        keys = [PATH_KEY(rel) for rel in text.split("\0")] if self.nul else text.replace("/", "\1").split("\0")
        self.total += len(keys)
        bound = self.bound
        if bound is not None:
            keys = [key for key in keys if key < bound]
        kept = self.kept
        kept += keys
        if len(kept) > self.keep:
            kept.sort()  # once `bound` is set, a sorted run and the few keys before it: cheap
            del kept[self.keep:]
            self.bound = kept[-1]

    def ordered(self) -> Iterator[str]:
        """Every path added, in path order: the kept first (made back into paths in C calls), the rest only if
        asked for."""
        kept = self.kept
        kept.sort()
        del kept[self.keep:]
        if self.nul:
            yield from map(methodcaller("replace", "\0", "/"), kept)
        elif kept:
            yield from "\0".join(kept).replace("\1", "/").split("\0")
        if len(self.kept) < self.total:
            yield from islice(by_path("\0".join(self.texts).split("\0")), len(self.kept), None)

    def shown(self, limit: int, folders: Folders) -> tuple[list[Item], int]:
        """The first `limit` paths, in path order, still regular files in their folder opened from the root without
        following a link (`folders`), and how many were found not to be (a file changed since rg named it: the next
        in order takes its place). In path order a folder's files come together: it is opened once."""
        shown: list[Item] = []
        refused = 0
        last, fd, stat = None, -1, os.stat
        for rel in self.ordered() if limit else ():
            parent, _, leaf = rel.rpartition("/")
            if parent != last:
                last = parent
                try:
                    fd = folders.open(parent)  # the newest folder open: kept open until another is opened
                except OSError:
                    fd = -1  # no longer a folder reached without a link: each of its files is refused
            if fd < 0:
                refused += 1
                continue
            try:
                st = stat(leaf, dir_fd=fd, follow_symlinks=False)
            except OSError:
                refused += 1
                continue
            if not S_ISREG(st.st_mode):
                refused += 1
                continue
            shown.append((rel, st.st_mtime_ns, st.st_size))
            if len(shown) >= limit:
                break
        return shown, refused
