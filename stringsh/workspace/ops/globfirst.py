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
from operator import attrgetter, methodcaller
from stat import S_ISREG
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

    from stringsh.workspace.ops.rgwalk import Folders

#: Path order's key of one path: `/` made NUL.
PATH_KEY = methodcaller("replace", "/", "\0")

Item = tuple[str, int | None, int | None]  # (root-relative path, mtime in ns, size) of a match: a GlobMatch's fields
#: A folder's files among those shown from which its listing is read rather than each file statted.
LIST_FROM = 8
ENTRY_NAME = attrgetter("name")
IS_FILE = methodcaller("is_file", follow_symlinks=False)
#: Entries of a folder's listing read per file looked up in it at most (a stat costs some ten entries read).
READ_PER_NAME = 8


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

    def shown(self, limit: int, folders: Folders) -> tuple[list[str], int]:
        """The first `limit` paths, in path order, still regular files in their folder opened from the root without
        following a link (`folders`), and how many were found not to be (a file changed since rg named it: the next
        in order takes its place)."""
        shown: list[str] = []
        refused = 0
        paths = self.ordered()
        while len(shown) < limit:
            batch = list(islice(paths, limit - len(shown)))
            if not batch:
                break
            regular = regular_files(batch, folders)
            kept = [rel for rel in batch if rel in regular]
            refused += len(batch) - len(kept)
            shown += kept
        return shown, refused


def regular_files(rels: list[str], folders: Folders) -> set[str]:
    """Which of `rels` are regular files in their folder opened from the root without following a link: each
    folder opened once, and its files looked up as regular_in does."""
    by_folder: dict[str, list[str]] = {}
    for rel in rels:
        parent, _, leaf = rel.rpartition("/")
        by_folder.setdefault(parent, []).append(leaf)
    regular: set[str] = set()
    for parent, leaves in by_folder.items():
        try:
            fd = folders.open(parent)
        except OSError:
            continue  # no longer a folder reached without a link: none of its files is shown
        prefix = parent + "/" if parent else ""
        regular.update(prefix + leaf for leaf in regular_in(fd, leaves))
    return regular


def regular_in(fd: int, leaves: list[str]) -> set[str]:
    """Which of the names `leaves` are regular files in the folder `fd`. Where LIST_FROM or more are asked, the
    folder's listing says (its entries' types, no stat each; read in C calls), up to READ_PER_NAME entries per name
    (a huge folder's listing is not read for a few of its files); the names it did not settle are statted."""
    wanted = set(leaves)
    found: set[str] = set()
    if len(wanted) >= LIST_FROM:
        budget = READ_PER_NAME * len(wanted)
        try:
            with os.scandir(fd) as listing:
                entries = list(islice(listing, budget + 1))
        except OSError:
            entries = []  # every name is statted
        else:
            found = wanted.intersection(map(ENTRY_NAME, filter(IS_FILE, entries)))
            if len(entries) <= budget:
                return found  # the whole listing: a name not found is not a regular file there
            wanted -= found
    for leaf in wanted:
        try:
            st = os.stat(leaf, dir_fd=fd, follow_symlinks=False)
        except OSError:
            continue
        if S_ISREG(st.st_mode):
            found.add(leaf)
    return found
