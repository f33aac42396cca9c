"""What the journal says of its own integrity, read for `/changes` and `stringsh audit verify`: rows naming a path
outside the roots, and the audit head anchored with the newest change set (journal.py writes it).

Rows naming a path outside the roots mean the journal was edited, never by the engine. The engine journals only a
root's own path, normalized and relative (`notes.md`, or `docs:guide.md` for another root). A row naming
`/root/canary.txt` or `../x` was written by someone else; recovery never writes it (the confiner refuses the path)
and records its change set as rolled back, which would read as a crash cleaned up. `/changes` shows such a change
set as tampering instead, and `stringsh audit verify` reports it and fails."""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from stringsh.workspace.journalrows import loaded

if TYPE_CHECKING:
    from stringsh.workspace.journal import Journal

T = TypeVar("T")


def stray(path: str, root_ids: Collection[str]) -> bool:
    """Whether a journalled path could not have come from the engine: absolute, with an empty, `.` or `..` part,
    a NUL, or empty (after a known root's `id:` prefix)."""
    head, colon, rest = path.partition(":")
    if colon and "/" not in head and head in root_ids:
        path = rest
    if not path or "\0" in path or path.startswith("/"):
        return True
    return any(part in ("", ".", "..") for part in path.split("/"))


def stray_paths(journal: Journal, cs: int, root_ids: Collection[str]) -> list[str]:
    """The paths of change set `cs` (its files, folders and links) outside the roots."""
    paths = [row.path for row in journal.files(cs)] + [op.path for op in journal.tree(cs)]
    return [path for path in paths if stray(path, root_ids)]


def stray_rows(journal_file: Path, root_ids: Collection[str]) -> list[tuple[int, str]]:
    """(change set, path) of every row outside the roots in the journal at `journal_file`, read-only and never
    through a link; none when there is no journal."""

    def rows(db: sqlite3.Connection, names: set[str]) -> list[tuple[int, str]]:
        return [(int(cs), str(loaded(path))) for table in ("files", "tree_ops") if table in names
                for cs, path in db.execute(f"SELECT cs, path FROM {table} ORDER BY cs")]

    found = _read_only(journal_file, rows)  # a name that is not UTF-8 is held as its bytes (`loaded`)
    return sorted((cs, path) for cs, path in found or () if stray(path, root_ids))


class Anchor(NamedTuple):
    """What `audit verify` holds the log against: the newest change id, and the audit head anchored with it."""

    changes: int  # the newest change id ever given out (0: none)
    cs: int | None = None  # the change set anchored (None: a journal older than anchors)
    records: int = 0
    digest: str = ""


def read_anchor(path: Path) -> Anchor | None:
    """The journal's anchor, read-only, never through a link; None when there is no journal (or no regular file)."""

    def anchor(db: sqlite3.Connection, names: set[str]) -> Anchor:
        seq = db.execute("SELECT seq FROM sqlite_sequence WHERE name='changesets'").fetchone() \
            if "sqlite_sequence" in names else None
        row = db.execute("SELECT cs, records, hash FROM audit_anchor WHERE id=1").fetchone() \
            if "audit_anchor" in names else None
        changes = int(seq[0]) if seq else 0
        return Anchor(changes, *row) if row else Anchor(changes)

    return _read_only(path, anchor)


def _read_only(path: Path, read: Callable[[sqlite3.Connection, set[str]], T]) -> T | None:
    """`read` over the journal at `path` opened read-only (with the names of its tables), never through a link; None
    when there is no journal or it is not a regular file."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    db = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, timeout=30)
    try:
        names = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        return read(db, names)
    finally:
        db.close()
