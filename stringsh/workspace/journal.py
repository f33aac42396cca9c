"""The change journal: SQLite (WAL) in the engine's state folder (state.py), previous bytes kept by content hash.

A change set is first written `pending` with every file's previous bytes (synchronous=NORMAL: the commit
reaches the WAL file but is not fsynced), then `seal` fsyncs the WAL file itself while the temp files are
fsynced in parallel; no file is renamed before both finished. The final `done` (or `rolled_back`) mark is not
fsynced: recovery rolls a pending set whose files all hold their new bytes forward. (`staged` is an older
name for `pending` and is recovered the same way.)
"""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from stringsh.errors import StringError

SCHEMA = """
CREATE TABLE IF NOT EXISTS changesets(
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    time REAL NOT NULL,
    topic TEXT NOT NULL,
    frontend TEXT NOT NULL,
    kind TEXT NOT NULL,            -- apply | revert
    reverts INTEGER,               -- for kind=revert: the change set undone
    state TEXT NOT NULL,           -- pending | done | rolled_back
    reverted_by INTEGER            -- set on an applied change set once a revert of it is done
);
CREATE INDEX IF NOT EXISTS changesets_state ON changesets(state);
CREATE INDEX IF NOT EXISTS changesets_topic ON changesets(topic, kind, state);
CREATE TABLE IF NOT EXISTS files(
    cs INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    path TEXT NOT NULL,            -- resolved root-relative path
    prev_sha TEXT,                 -- NULL: the file did not exist
    new_sha TEXT,                  -- NULL: the change deletes it
    prev_mode INTEGER,
    new_mode INTEGER,
    PRIMARY KEY(cs, idx)
);
CREATE TABLE IF NOT EXISTS blobs(sha TEXT PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS appends(   -- an append (ops/appending.py) keeps the first prev_size bytes: no blob
    cs INTEGER NOT NULL,
    idx INTEGER NOT NULL,
    prev_size INTEGER NOT NULL,
    PRIMARY KEY(cs, idx)
);
"""


@dataclass(frozen=True)
class FileRow:
    idx: int
    path: str
    prev_sha: str | None
    new_sha: str | None
    prev_mode: int | None
    new_mode: int | None
    #: Set for an append and its undo: only bytes past this offset change, so no previous bytes are kept.
    prev_size: int | None = None


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


class MissingBlob(StringError):
    """The journal has no previous bytes for a hash its own rows name: it was damaged or edited by hand."""

    def __init__(self, sha: str) -> None:
        super().__init__(
            "INTERNAL_ERROR",
            f"The change journal has lost the previous bytes {sha[:12]}.",
            "Nothing was changed; restore the file by hand (from version control) if you need its old content.",
        )
        self.sha = sha


class Journal:
    """One connection per Workspace; callers serialise access (the workspace lock)."""

    def __init__(self, path: Path) -> None:
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
        try:
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(SCHEMA)
        except BaseException:
            self.db.close()  # not a database (or a damaged one): the caller reports it
            raise
        self.path = path
        self.wal_path = f"{path}-wal"
        self._wal_fd = -1

    def close(self) -> None:
        if self._wal_fd >= 0:
            os.close(self._wal_fd)
            self._wal_fd = -1
        self.db.close()

    def begin(self, topic: str, frontend: str, kind: str, reverts: int | None, rows: list[FileRow],
              blobs: dict[str, bytes]) -> int:
        """Record a pending change set with its previous bytes (not yet durable: call `seal`)."""
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            cur = db.execute(
                "INSERT INTO changesets(time, topic, frontend, kind, reverts, state) VALUES (?,?,?,?,?,'pending')",
                (time.time(), topic, frontend, kind, reverts),
            )
            cs = int(cur.lastrowid or 0)
            db.executemany(
                "INSERT INTO files VALUES (?,?,?,?,?,?,?)",
                [(cs, r.idx, r.path, r.prev_sha, r.new_sha, r.prev_mode, r.new_mode) for r in rows],
            )
            db.executemany("INSERT OR IGNORE INTO blobs VALUES (?,?)", list(blobs.items()))
            db.executemany("INSERT INTO appends VALUES (?,?,?)",
                           [(cs, r.idx, r.prev_size) for r in rows if r.prev_size is not None])
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return cs

    def seal(self, cs: int) -> None:
        """Make every committed record durable by fsyncing the WAL file (the one SQLite uses now: a WAL
        that was deleted and recreated is opened again)."""
        st = os.stat(self.wal_path)
        if self._wal_fd < 0 or os.fstat(self._wal_fd).st_ino != st.st_ino:
            if self._wal_fd >= 0:
                os.close(self._wal_fd)
            self._wal_fd = os.open(self.wal_path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        os.fsync(self._wal_fd)

    def finish(self, cs: int, state: str, reverts: int | None = None) -> None:
        db = self.db
        if not (state == "done" and reverts is not None):
            db.execute("UPDATE changesets SET state=? WHERE id=?", (state, cs))  # one statement: atomic alone
            return
        db.execute("BEGIN IMMEDIATE")
        try:
            db.execute("UPDATE changesets SET state=? WHERE id=?", (state, cs))
            db.execute("UPDATE changesets SET reverted_by=? WHERE id=?", (cs, reverts))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def get(self, cs: int) -> ChangeRow | None:
        row = self.db.execute("SELECT * FROM changesets WHERE id=?", (cs,)).fetchone()
        return ChangeRow(*row) if row else None

    def files(self, cs: int) -> list[FileRow]:
        rows = self.db.execute(
            "SELECT f.idx, f.path, f.prev_sha, f.new_sha, f.prev_mode, f.new_mode, a.prev_size FROM files f "
            "LEFT JOIN appends a ON a.cs = f.cs AND a.idx = f.idx WHERE f.cs=? ORDER BY f.idx",
            (cs,),
        ).fetchall()
        return [FileRow(*row) for row in rows]

    def blob(self, sha: str) -> bytes:
        """Previous bytes by hash; a coded error when the journal lost them (callers say which file and change)."""
        row = self.db.execute("SELECT data FROM blobs WHERE sha=?", (sha,)).fetchone()
        if row is None:
            raise MissingBlob(sha)
        return bytes(row[0])

    def pending(self) -> list[int]:
        rows = self.db.execute("SELECT id FROM changesets WHERE state IN ('staged', 'pending') ORDER BY id")
        return [r[0] for r in rows]

    def last_undoable(self, topic: str) -> int | None:
        row = self.db.execute(
            "SELECT id FROM changesets WHERE topic=? AND kind='apply' AND state='done' AND reverted_by IS NULL "
            "ORDER BY id DESC LIMIT 1",
            (topic,),
        ).fetchone()
        return row[0] if row else None

    def prune(self, keep: int) -> int:
        """Forget finished change sets older than the newest `keep` and the previous bytes only they held."""
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            cutoff = db.execute("SELECT COALESCE(MAX(id), 0) - ? FROM changesets", (keep,)).fetchone()[0]
            old = "SELECT id FROM changesets WHERE id <= ? AND state NOT IN ('pending', 'staged')"
            db.execute(f"DELETE FROM files WHERE cs IN ({old})", (cutoff,))
            db.execute(f"DELETE FROM appends WHERE cs IN ({old})", (cutoff,))
            removed = db.execute(f"DELETE FROM changesets WHERE id IN ({old})", (cutoff,)).rowcount
            db.execute("DELETE FROM blobs WHERE sha NOT IN (SELECT prev_sha FROM files WHERE prev_sha IS NOT NULL)")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return removed

    def undo_depth(self, topic: str) -> int:
        row = self.db.execute(
            "SELECT COUNT(*) FROM changesets WHERE topic=? AND kind='apply' AND state='done' AND reverted_by IS NULL",
            (topic,),
        ).fetchone()
        return int(row[0])

    def history(self, limit: int = 50) -> list[ChangeRow]:
        rows = self.db.execute("SELECT * FROM changesets ORDER BY id DESC LIMIT ?", (limit,)).fetchall()
        return [ChangeRow(*row) for row in rows]
