"""Typed values the engine hands out; plain dataclasses so every front end can format them its own way.

The change-set values live here; the read-side responses live with their operation (`FileInfo` in ops/stat.py,
`DirEntry` in ops/listdir.py, `TextFile` in ops/read.py), so a listing does not build the types of a write.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

    from stringsh.workspace.journal import TreeOp

__all__ = [
    "ChangeSet",
    "ChangeSetId",
    "FileChange",
    "Hunk",
    "Patch",
    "RevertOutcome",
    "RevertedFile",
    "SkippedChange",
    "WriteOutcome",
]


class ChangeSetId(int):
    """The id `Workspace.apply` returns and `Workspace.revert` takes (docs/change-sets.md). An int, so every
    caller that already stores or prints change ids as numbers goes on working."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"ChangeSetId({int(self)})"

    __str__ = int.__repr__  # printed and formatted as the number


@dataclass(frozen=True)
class WriteOutcome:
    rel: str
    created: bool
    size: int
    lines: int
    change_id: int
    sha256: str = ""


@dataclass(frozen=True)
class RevertedFile:
    """One file put back by a revert; `action` is "reverted", "deleted" (the change created it), "restored"
    (the change deleted it), or, when nothing had to be written, "already" (the file already held its previous
    bytes) or "already_gone" (the change created it and it is gone). `folders`: the empty folders the change
    had created for it, removed with it (innermost first)."""

    rel: str
    action: str
    lines: int
    folders: tuple[str, ...] = ()


@dataclass(frozen=True)
class RevertOutcome:
    change_id: int  # the new change set that did the revert
    reverted_id: int  # the change set that was undone
    files: tuple[RevertedFile, ...]
    #: The folders and symlinks the revert made or removed (a /mkdir, /mv or /rm undone), in the order done.
    tree: tuple[TreeOp, ...] = ()


@dataclass(frozen=True)
class SkippedChange:
    """`/undo --skip`: the change undo passed over (its files left as they are) and what undo reaches next."""

    change_id: int
    paths: tuple[str, ...]
    next_id: int | None


@dataclass(frozen=True)
class FileChange:
    """Write `data` to `path` (None deletes it). `expected_prev_sha256` guards against lost updates:
    the sha256 of the bytes the caller based the change on, or "" when the file must not exist yet. `times`:
    the (atime_ns, mtime_ns) the written file gets, as `mv` and `cp -p` keep them (None: now)."""

    path: str
    data: bytes | None
    expected_prev_sha256: str | None = None
    mode: int | None = None
    times: tuple[int, int] | None = None


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


@dataclass
class ChangeSet:
    """Files changed together, all or nothing: whole-file changes (`files`, what the commands build) and hunk
    patches (`patches`, docs/change-sets.md) in one change set, one id, one undo."""

    files: list[FileChange] = field(default_factory=list)
    patches: list[Patch] = field(default_factory=list)

    @classmethod
    def new(cls, patches: Iterable[Patch] = ()) -> ChangeSet:
        """The API's `ChangeSet.new`: a change set of `patches`, checked now (each a `Patch`, each path once, each
        hunk's header counting its lines), so a malformed one is refused before any file is read."""
        from stringsh.workspace.hunks import check_patches

        listed = list(patches)
        check_patches(listed)
        return cls(patches=listed)

    def write(self, path: str, data: bytes, *, expected_prev_sha256: str | None = None) -> ChangeSet:
        self.files.append(FileChange(path, data, expected_prev_sha256))
        return self

    def delete(self, path: str, *, expected_prev_sha256: str | None = None) -> ChangeSet:
        self.files.append(FileChange(path, None, expected_prev_sha256))
        return self
