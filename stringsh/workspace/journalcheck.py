"""Journal rows naming a path outside the roots: the journal was edited, never by the engine.

The engine journals only a root's own path, normalized and relative (`notes.md`, or `docs:guide.md` for another
root). A row naming `/root/canary.txt` or `../x` was written by someone else; recovery never writes it (the
confiner refuses the path) and records its change set as rolled back, which would read as a crash cleaned up.
`/changes` shows such a change set as tampering instead, and `stringsh audit verify` reports it and fails."""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from stringsh.workspace.journal import Journal


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
    try:
        st = os.lstat(journal_file)
    except FileNotFoundError:
        return []
    if not stat.S_ISREG(st.st_mode):
        return []
    from stringsh.workspace.journal import loaded  # a name that is not UTF-8 is held as its bytes

    db = sqlite3.connect(f"{journal_file.as_uri()}?mode=ro", uri=True, timeout=30)
    try:
        names = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        rows = [(int(cs), str(loaded(path))) for table in ("files", "tree_ops") if table in names
                for cs, path in db.execute(f"SELECT cs, path FROM {table} ORDER BY cs")]
    finally:
        db.close()
    return sorted((cs, path) for cs, path in rows if stray(path, root_ids))
