"""The change journal's rows as the engine passes them around (journal.py stores them): a change set's files, the
folders and links it made or removed, its history row, one link of a chain, and how a path a row holds is stored.

Apart from the journal itself, because the operations build these rows and read them back (an undo inverts them)
without holding the SQLite store: plain values, no database.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import NamedTuple

from stringsh.errors import StringError


@dataclass(frozen=True)
class FileRow:
    idx: int
    path: str
    prev_sha: str | None
    new_sha: str | None
    prev_mode: int | None
    new_mode: int | None
    new_dirs: tuple[str, ...] = ()  # folders the change created for this file, outermost first
    #: Set for an append and its undo: only bytes past this offset change, so no previous bytes are kept.
    prev_size: int | None = None
    #: (atime_ns, mtime_ns) of the file before the change, kept for a move, copy or delete (None: not kept).
    prev_times: tuple[int, int] | None = None


@dataclass(frozen=True)
class TreeOp:
    """A folder or symlink a change made or removed; files go in `files` with their bytes."""

    path: str
    kind: str  # dir | link
    action: str  # make | remove
    mode: int | None = None
    target: str | None = None

    def inverse(self) -> TreeOp:
        return replace(self, action="remove" if self.action == "make" else "make")


def stored(name: str | None) -> str | bytes | None:
    """A path (or a link's target, or folders joined by newlines) as a row holds it: text, or, when it holds a byte
    that was not UTF-8 (a name the engine found, `paths.found_names`), its exact bytes as a BLOB, since SQLite's
    text must be UTF-8 (`loaded` reads either back)."""
    if name is None or name.isascii():
        return name
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return name.encode("utf-8", "surrogateescape")
    return name


def loaded(value: str | bytes | None) -> str | None:
    """A path as `stored` wrote it, the name `os` would give for it."""
    return value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else value


def inverse_tree(ops: tuple[TreeOp, ...]) -> tuple[TreeOp, ...]:
    """What undoes `ops`, in execution order: makes outermost first, then removes innermost first."""
    return tuple(op.inverse() for op in reversed(ops))


@dataclass(frozen=True)
class ChangeRow:
    id: int
    time: float
    topic: str
    frontend: str
    kind: str
    reverts: int | None
    state: str
    reverted_by: int | None
    client: str | None = None  # None: written by a version that did not record clients
    skipped: float | None = None
    command: str | None = None  # the command line that made it; None: a library call or an older version


class Link(NamedTuple):
    """One change set of a chain written in one transaction (`Journal.begin_chain`), attributed to its own request."""

    topic: str
    frontend: str
    client: str
    command: str
    rows: list[FileRow]
    blobs: dict[str, bytes]


class MissingBlob(StringError):
    """The journal has no previous bytes for a hash its own rows name: it was damaged or edited by hand."""

    def __init__(self, sha: str) -> None:
        super().__init__(
            "INTERNAL_ERROR",
            f"The change journal has lost the previous bytes {sha[:12]}.",
            "Nothing was changed; restore the file by hand (from version control) if you need its old content.",
        )
        self.sha = sha
