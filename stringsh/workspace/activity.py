"""Who changed what, summed per client and topic from the journal: the supervisor's view of the clients
(`stringsh web`). Read only; one query over the change sets, whatever their number."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path
from typing import NamedTuple

from stringsh.workspace.healthstate import Degraded, LockHolder


class ClientChanges(NamedTuple):
    """One client's change sets in one topic: how many, how many `/undo` could still take back (and the one it
    would take next), the newest one's id, time and dialect."""

    client: str
    topic: str
    changes: int
    undo_depth: int
    next_undo: int | None
    newest: int
    time: float
    frontend: str


#: A change `/undo` of its client and topic can still take back (journal.UNDOABLE's condition, per row).
_UNDOABLE = "c.kind='apply' AND c.state='done' AND c.reverted_by IS NULL AND o.skipped IS NULL"

_QUERY = (
    "WITH g AS (SELECT o.client AS client, c.topic AS topic, COUNT(*) AS n, "
    f"SUM(CASE WHEN {_UNDOABLE} THEN 1 ELSE 0 END) AS depth, MAX(CASE WHEN {_UNDOABLE} THEN c.id END) AS next, "
    "MAX(c.id) AS newest, MAX(c.time) AS t FROM changesets c JOIN owners o ON o.cs = c.id "
    "WHERE c.state != 'rolled_back' GROUP BY o.client, c.topic) "
    "SELECT g.client, g.topic, g.n, g.depth, g.next, g.newest, g.t, c.frontend FROM g "
    "JOIN changesets c ON c.id = g.newest ORDER BY g.newest DESC"
)


def client_changes(db: sqlite3.Connection) -> list[ClientChanges]:
    """Every client and topic that made a change set the journal keeps, the most recently active first."""
    return [ClientChanges(str(row[0]), str(row[1]), int(row[2]), int(row[3] or 0), row[4], int(row[5]),
                          float(row[6]), str(row[7])) for row in db.execute(_QUERY)]


def path_history(db: sqlite3.Connection, path: str, limit: int) -> list[int]:
    """The change sets that wrote `path` (a file, a folder or a link), newest first: a file's timeline."""
    from stringsh.workspace.journalrows import stored

    name = stored(path)
    rows = db.execute("SELECT id FROM changesets WHERE state != 'rolled_back' AND id IN (SELECT cs FROM files "
                      "WHERE path=? UNION SELECT cs FROM tree_ops WHERE path=?) ORDER BY id DESC LIMIT ?",
                      (name, name, limit))
    return [row[0] for row in rows]


class Health(NamedTuple):
    """`read_only`: why changes are refused now (degraded mode), None when they are not; the bytes free and in all
    on the state folder's file system (its nearest existing folder's); who holds the workspace lock; the degraded
    mode another process ran into (its note, healthstate.py), when no change set was written since."""

    read_only: str | None
    free_bytes: int
    total_bytes: int
    lock: LockHolder = LockHolder(False)
    degraded: Degraded | None = None


def health(folder: Path, read_only: str | None, newest_change: float | None = None) -> Health:
    """`newest_change`: when the journal's newest change set was written (a note older than it is over)."""
    from stringsh.workspace.healthstate import lock_holder, read_degraded
    from stringsh.workspace.statefolder import LOCK_FILE

    lock = lock_holder(folder / LOCK_FILE)
    degraded = read_degraded(folder)
    if degraded is not None and newest_change is not None and newest_change > degraded.time:
        degraded = None
    where = folder
    while not os.path.isdir(where) and where != where.parent:
        where = where.parent
    try:
        usage = shutil.disk_usage(where)
    except OSError:
        return Health(read_only, 0, 0, lock, degraded)
    return Health(read_only, usage.free, usage.total, lock, degraded)


def newest_change_time(db: sqlite3.Connection) -> float | None:
    """When the newest change set the journal keeps was made (by id: one row read)."""
    row = db.execute("SELECT time FROM changesets ORDER BY id DESC LIMIT 1").fetchone()
    return None if row is None else float(row[0])
