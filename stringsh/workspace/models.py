"""Typed values the engine hands out; plain dataclasses so every front end can format them its own way.

The change-set values live here; the read-side responses live with their operation (`FileInfo` in ops/stat.py,
`DirEntry` in ops/listdir.py, `TextFile` in ops/read.py), so a listing does not build the types of a write.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from stringsh.errors import StringError
from stringsh.escapes import shown_name
from stringsh.workspace.patches import PATCH_ACTIONS, Hunk, Patch, check_patches

if TYPE_CHECKING:
    from collections.abc import Iterable

    from stringsh.workspace.journalrows import TreeOp

__all__ = [
    "PATCH_ACTIONS",
    "ChangeSet",
    "ChangeSetId",
    "FileChange",
    "Hunk",
    "LinkInFolder",
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
    """One file put back by a revert; `action` is "reverted", "reverted_part" (an undo that put back only the
    lines the change wrote, later changes elsewhere in the file kept), "deleted" (the change created it),
    "restored" (the change deleted it), or, when nothing had to be written, "already" (the file already held its
    previous bytes) or "already_gone" (the change created it and it is gone). `folders`: the empty folders the
    change had created for it, removed with it (innermost first)."""

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
        listed = list(patches)
        check_patches(listed)
        return cls(patches=listed)

    def write(self, path: str, data: bytes, *, expected_prev_sha256: str | None = None) -> ChangeSet:
        self.files.append(FileChange(path, data, expected_prev_sha256))
        return self

    def delete(self, path: str, *, expected_prev_sha256: str | None = None) -> ChangeSet:
        self.files.append(FileChange(path, None, expected_prev_sha256))
        return self


class LinkInFolder(StringError):
    """A folder copy refused because the folder holds a symbolic link (a copy of a relative link may lead
    elsewhere, and a copy never follows one); `folder` and `path` let each dialect word its own refusal."""

    def __init__(self, folder: str, path: str) -> None:
        super().__init__("INVALID_TARGET", f"{shown_name(folder)} holds {shown_name(path)}, a symlink; only "
                         "folders of plain files and folders are copied",
                         "Nothing was changed; copy the files around the link one by one.")
        self.folder = folder
        self.path = path
