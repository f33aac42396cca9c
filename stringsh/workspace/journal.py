"""The change journal: SQLite (WAL) in the engine's state folder (state.py), previous bytes kept by content hash.
The rows it stores and hands back are journalrows.py's.

A change set is first written `pending` with every file's previous bytes (synchronous=NORMAL: the commit
reaches the WAL file but is not fsynced; bytes of `FILE_BLOB` or more go to a blob file, blobfiles.py), then
`seal` fsyncs the WAL file itself (and the blob files) while the temp files are fsynced in parallel; no file is
renamed before all finished (docs/change-sets.md has the whole protocol). The final `done` (or `rolled_back`)
mark is not fsynced: recovery rolls a pending set whose files all hold their new bytes forward. WAL checkpoints
run on a worker thread once a change set is finished (checkpoint.py), never inside a change set's commit.
(`staged` is an older name for `pending` and is recovered the same way.)

Undo belongs to the client that made a change: `owners` names the client (one process, or one daemon) of each
change set, and `/undo` walks back only its own client's changes of one topic. Those tables (and `new_dirs`, the
folders a change created) sit beside the original two rather than in new columns, so a journal written by an
older version upgrades by `CREATE TABLE` alone (its change sets have no owner: no new process undoes them, they
stay revertable by id), and an older version can still read a newer journal. `tree_ops` (the folders and
symlinks a /mkdir, /mv or /rm made or removed) and `prev_times` (the access and modification times of a file a
/mv, /cp or /rm took away, which its undo gives back) are more such tables, and so are `commands` (the command
line that made a change set, for /changes), `meta` (the running total of kept bytes), `pruned_undo` and
`audit_anchor`.

The audit trail is anchored here: every change set's transaction also records the audit log's head as it stood
(`audit_anchor`: the change set, the current log's record count, its newest hash), so deleting both the log and
its head cannot pass `stringsh audit verify` while the journal holds changes (audit.py `check_anchor`, on what
journalcheck.py `read_anchor` reads). It costs nothing per read-only request: only a change set writes it, inside
the transaction it opens anyway.

The journal is bounded (keep.py): once a change takes it a tenth past the policy's `[journal]` `keep_changes`, or
past its `keep_bytes`, the oldest change sets are pruned with the previous bytes only they held.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from stringsh.errors import StringError
from stringsh.workspace import atomic
from stringsh.workspace.blobfiles import BLOB_DIR, FILE_BLOB, BlobFiles
from stringsh.workspace.checkpoint import LIMIT as CHECKPOINT_LIMIT
from stringsh.workspace.checkpoint import Checkpointer
from stringsh.workspace.context import current
from stringsh.workspace.journalrows import ChangeRow, FileRow, Link, MissingBlob, TreeOp, loaded, stored
from stringsh.workspace.journalschema import SCHEMA

if TYPE_CHECKING:
    from stringsh.workspace.keep import Depth
    from stringsh.workspace.policy import JournalKeep


#: The undoable change sets of one client's topic, newest first (`?` topic, `?` client).
UNDOABLE = (
    "FROM changesets c JOIN owners o ON o.cs = c.id WHERE c.topic=? AND o.client=? AND c.kind='apply' "
    "AND c.state='done' AND c.reverted_by IS NULL AND o.skipped IS NULL"
)
CHANGE_COLUMNS = (
    "SELECT c.id, c.time, c.topic, c.frontend, c.kind, c.reverts, c.state, c.reverted_by, o.client, o.skipped, "
    "m.line FROM changesets c LEFT JOIN owners o ON o.cs = c.id LEFT JOIN commands m ON m.cs = c.id"
)


class Journal:
    """One connection per Workspace; callers serialise access (the workspace lock). `client` names the process
    (or daemon) whose changes this connection records and undoes."""

    def __init__(self, path: Path, client: str = "") -> None:
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
        try:
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.execute("PRAGMA wal_autocheckpoint=0")  # checkpoint.py does it off the writer's path
            self.db.execute(f"PRAGMA journal_size_limit={CHECKPOINT_LIMIT}")
            self.db.executescript(SCHEMA)
        except BaseException:
            self.db.close()  # not a database (or a damaged one): the caller reports it
            raise
        self.path = path
        self._client = client
        #: The audit log's head now, (record count, newest hash): anchored with every change set (state.py sets it).
        self.audit_head: Callable[[], tuple[int, str]] | None = None
        #: Called before a change set is first written `pending`: marks recovery due (journalfile.py).
        self.before_pending: Callable[[], None] | None = None
        self.wal_path = f"{path}-wal"
        self._wal_fd = -1
        self.blob_files = BlobFiles(path.parent / BLOB_DIR)
        self.checkpoints = Checkpointer(path, self.wal_path)

    @property
    def client(self) -> str:
        """Whose undo history a change joins and `/undo` walks: the client of the request being served
        (context.py), else the one the journal was opened for."""
        ctx = current()
        return ctx.client if ctx is not None and ctx.client else self._client

    def close(self) -> None:
        self.checkpoints.wait()
        self.blob_files.close()
        if self._wal_fd >= 0:
            os.close(self._wal_fd)
            self._wal_fd = -1
        self.db.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: `BEGIN IMMEDIATE`, then `COMMIT`, or `ROLLBACK` on any exception. A full or
        read-only disk, an I/O error or a lock held too long is a coded condition (journalfile.fault): nothing of
        the transaction is kept, and the next one tries again."""
        db = self.db
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:  # SQLite may have rolled back itself (a full disk, an I/O error)
                    db.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            from stringsh.workspace.journalfile import fault

            raise fault(self.path, exc) from None

    def begin(self, topic: str, frontend: str, kind: str, reverts: int | None, rows: list[FileRow],
              blobs: dict[str, bytes], tree: tuple[TreeOp, ...] = (), *, command: str = "") -> int:
        """Record a pending change set with its previous bytes (not yet durable: call `seal`); `command`: the
        command line that makes it, for /changes."""
        if self.before_pending is not None:
            self.before_pending()
        try:
            return self._begin(topic, frontend, kind, reverts, rows, blobs, tree, command)
        except BaseException:
            self.blob_files.drop()  # the rows naming them were rolled back
            raise

    def begin_chain(self, links: list[Link], state: str = "pending") -> list[int]:
        """Record several change sets in one transaction (group commit, groupcommit.py), each with its own
        attribution and previous bytes, in order: one seal makes them all durable. Their ids, in the same order.
        `state`: "queued" for change sets left for the next lock holder to make durable and put in place
        (queued.py)."""
        if self.before_pending is not None:
            self.before_pending()
        try:
            with self._write() as db:
                return [self._insert(db, link.topic, link.frontend, "apply", None, link.rows, link.blobs, (),
                                     link.command, link.client, state) for link in links]
        except BaseException:
            self.blob_files.drop()
            raise

    def _begin(self, topic: str, frontend: str, kind: str, reverts: int | None, rows: list[FileRow],
               blobs: dict[str, bytes], tree: tuple[TreeOp, ...], command: str) -> int:
        with self._write() as db:
            return self._insert(db, topic, frontend, kind, reverts, rows, blobs, tree, command, self.client)

    def _insert(self, db: sqlite3.Connection, topic: str, frontend: str, kind: str, reverts: int | None,
                rows: list[FileRow], blobs: dict[str, bytes], tree: tuple[TreeOp, ...], command: str,
                client: str, state: str = "pending") -> int:
        """Inside a write transaction: one pending change set's rows, its previous bytes and the audit anchor."""
        cur = db.execute(
            "INSERT INTO changesets(time, topic, frontend, kind, reverts, state) VALUES (?,?,?,?,?,?)",
            (time.time(), topic, frontend, kind, reverts, state),
        )
        cs = int(cur.lastrowid or 0)
        db.execute("INSERT INTO owners(cs, client) VALUES (?,?)", (cs, client))
        db.executemany(
            "INSERT INTO files VALUES (?,?,?,?,?,?,?)",
            [(cs, r.idx, stored(r.path), r.prev_sha, r.new_sha, r.prev_mode, r.new_mode) for r in rows],
        )
        db.executemany(
            "INSERT INTO new_dirs VALUES (?,?,?)",
            [(cs, r.idx, stored("\n".join(r.new_dirs))) for r in rows if r.new_dirs],
        )
        if command:
            db.execute("INSERT INTO commands VALUES (?,?)", (cs, command))
        added = 0
        for sha, data in blobs.items():  # one by one: only bytes not kept yet add to the running total
            if len(data) >= FILE_BLOB:
                added += self.blob_files.keep(db, sha, data)
            elif db.execute("INSERT OR IGNORE INTO blobs VALUES (?,?)", (sha, data)).rowcount:
                added += len(data)
        if added:
            db.execute("UPDATE meta SET value = value + ? WHERE key = 'blob_bytes'", (added,))
        db.executemany("INSERT INTO appends VALUES (?,?,?)",
                       [(cs, r.idx, r.prev_size) for r in rows if r.prev_size is not None])
        _insert_tree(db, cs, tree)
        db.executemany("INSERT INTO prev_times VALUES (?,?,?,?)",
                       [(cs, r.idx, *r.prev_times) for r in rows if r.prev_times is not None])
        self._anchor(db, cs)
        return cs

    def _anchor(self, db: sqlite3.Connection, cs: int) -> None:
        """Inside a change set's transaction: the audit head as it stands, so losing the log is detected."""
        if self.audit_head is not None:
            records, digest = self.audit_head()
            db.execute("INSERT OR REPLACE INTO audit_anchor VALUES (1,?,?,?)", (cs, records, digest))

    def set_new_dirs(self, cs: int, idx: int, dirs: tuple[str, ...]) -> None:
        """Correct the folders a change created (one planned as new already existed when it was made)."""
        if dirs:
            self.db.execute("INSERT OR REPLACE INTO new_dirs VALUES (?,?,?)", (cs, idx, stored("\n".join(dirs))))
        else:
            self.db.execute("DELETE FROM new_dirs WHERE cs=? AND idx=?", (cs, idx))

    def tree(self, cs: int) -> tuple[TreeOp, ...]:
        rows = self.db.execute(
            "SELECT path, kind, action, mode, target FROM tree_ops WHERE cs=? ORDER BY seq", (cs,)
        ).fetchall()
        return tuple(TreeOp(loaded(path), kind, action, mode, loaded(target))  # type: ignore[arg-type]
                     for path, kind, action, mode, target in rows)

    def set_tree(self, cs: int, tree: tuple[TreeOp, ...]) -> None:
        """Correct the folders and links a change made or removed (one was there already, or stayed)."""
        with self._write() as db:
            db.execute("DELETE FROM tree_ops WHERE cs=?", (cs,))
            _insert_tree(db, cs, tree)

    def settle(self, topic: str, frontend: str, cs: int, *, kind: str = "revert", command: str = "") -> int:
        """Record that change `cs` is undone without writing anything (its files already hold their previous
        bytes): a finished revert with no files, in one transaction. `kind="apply"`: a `/revert`, itself undoable."""
        with self._write() as db:
            cur = db.execute(
                "INSERT INTO changesets(time, topic, frontend, kind, reverts, state) VALUES (?,?,?,?,?,'done')",
                (time.time(), topic, frontend, kind, cs),
            )
            undo = int(cur.lastrowid or 0)
            db.execute("INSERT INTO owners(cs, client) VALUES (?,?)", (undo, self.client))
            if command:
                db.execute("INSERT INTO commands VALUES (?,?)", (undo, command))
            _mark_reverted(db, undo, cs)
            self._anchor(db, undo)
        return undo

    def skip(self, cs: int) -> None:
        """`/undo --skip`: this client's undo passes over `cs` from now on (it stays revertable by id)."""
        self.db.execute("UPDATE owners SET skipped=? WHERE cs=?", (time.time(), cs))  # one statement: atomic

    def seal(self, cs: int, pool: atomic.FsyncPool | None = None) -> None:
        """Make every committed record durable by fsyncing the WAL file (the one SQLite uses now: a WAL
        that was deleted and recreated is opened again), and the blob files `begin` wrote with their folder (on
        `pool`'s threads beside the WAL's, when given)."""
        try:
            st = os.stat(self.wal_path)
            if self._wal_fd < 0 or os.fstat(self._wal_fd).st_ino != st.st_ino:
                if self._wal_fd >= 0:
                    os.close(self._wal_fd)
                self._wal_fd = os.open(self.wal_path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
            wal = self._wal_fd
            self.blob_files.sync(pool, lambda: os.fsync(wal))
        except OSError as exc:  # the journal's disk, not the workspace's: said of the journal (journalfile.fault)
            from stringsh.workspace.journalfile import fault

            raise fault(self.path, exc) from None

    def finish(self, cs: int, state: str, reverts: int | None = None, keep: JournalKeep | None = None) -> None:
        """Mark a change set done or rolled back; with `keep` (the policy's), a done one then prunes the journal to
        it when it has grown past it (keep.py: a cheap check, a prune only then)."""
        if self.blob_files.unsynced:  # given up before its seal: its blob files stay (its rows name them), durable too
            self.seal(cs)
        db = self.db
        if not (state == "done" and reverts is not None):
            try:
                db.execute("UPDATE changesets SET state=? WHERE id=?", (state, cs))  # one statement: atomic alone
            except sqlite3.Error as exc:  # a full or read-only disk: the set stays pending, recovery settles it
                from stringsh.workspace.journalfile import fault

                raise fault(self.path, exc) from None
        else:
            with self._write() as db:
                db.execute("UPDATE changesets SET state=? WHERE id=?", (state, cs))
                _mark_reverted(db, cs, reverts)
        if keep is not None and state == "done":
            from stringsh.workspace.keep import bound, over

            if over(self.db, keep):  # read outside a transaction: a change under the bound opens none more
                gone: list[str] = []
                try:
                    with self._write() as db:
                        bound(db, keep, gone)
                except StringError:  # a disk too full to prune on: the next change prunes (no blob is dropped)
                    gone = []
                self.blob_files.unlink(gone)
        self.checkpoints.kick()

    def get(self, cs: int) -> ChangeRow | None:
        row = self.db.execute(f"{CHANGE_COLUMNS} WHERE c.id=?", (cs,)).fetchone()
        return ChangeRow(*row) if row else None

    def files(self, cs: int) -> list[FileRow]:
        rows = self.db.execute(
            "SELECT f.idx, f.path, f.prev_sha, f.new_sha, f.prev_mode, f.new_mode, d.dirs, a.prev_size, "
            "t.atime_ns, t.mtime_ns FROM files f "
            "LEFT JOIN new_dirs d ON d.cs = f.cs AND d.idx = f.idx "
            "LEFT JOIN appends a ON a.cs = f.cs AND a.idx = f.idx "
            "LEFT JOIN prev_times t ON t.cs = f.cs AND t.idx = f.idx WHERE f.cs=? ORDER BY f.idx",
            (cs,),
        ).fetchall()
        return [FileRow(row[0], loaded(row[1]), *row[2:6],  # type: ignore[arg-type]
                        tuple(loaded(row[6]).split("\n")) if row[6] else (),  # type: ignore[union-attr]
                        row[7], None if row[8] is None else (row[8], row[9])) for row in rows]

    def blob(self, sha: str) -> bytes:
        """Previous bytes by hash; a coded error when the journal lost them (callers say which file and change).
        A blob file is checked against its hash: bytes that are not exactly the kept ones are never handed out."""
        row = self.db.execute("SELECT data FROM blobs WHERE sha=?", (sha,)).fetchone()
        if row is not None:
            return bytes(row[0])
        kept = self.db.execute("SELECT 1 FROM blob_files WHERE sha=?", (sha,)).fetchone()
        data = None if kept is None else self.blob_files.read(sha)
        if data is None:
            raise MissingBlob(sha)
        return data

    def pending(self) -> list[int]:
        rows = self.db.execute("SELECT id FROM changesets WHERE state IN ('staged', 'pending') ORDER BY id")
        return [r[0] for r in rows]

    def queued(self) -> list[int]:
        """Change sets recorded and staged by a writer that left them for the next lock holder (queued.py)."""
        return [r[0] for r in self.db.execute("SELECT id FROM changesets WHERE state='queued' ORDER BY id")]

    def unfinished(self) -> tuple[list[int], list[int]]:
        """(pending, queued) in one query: what a lock holder recovers, and what it puts in place."""
        pending: list[int] = []
        queued: list[int] = []
        for cs, state in self.db.execute(
                "SELECT id, state FROM changesets WHERE state IN ('staged', 'pending', 'queued') ORDER BY id"):
            (queued if state == "queued" else pending).append(cs)
        return pending, queued

    def last_undoable(self, topic: str, before: int | None = None) -> int | None:
        """This client's newest change in `topic` that `/undo` has not taken back or skipped (older than
        `before` when given)."""
        row = self.db.execute(
            f"SELECT c.id {UNDOABLE} AND c.id < ? ORDER BY c.id DESC LIMIT 1",
            (topic, self.client, before if before is not None else 2**62),
        ).fetchone()
        return row[0] if row else None

    def prune(self, keep: int, keep_bytes: int | None = None) -> int:
        """Forget finished change sets beyond the newest `keep` (and beyond `keep_bytes` of previous bytes) and the
        previous bytes only they held; returns how many went (keep.py)."""
        from stringsh.workspace.keep import prune

        gone: list[str] = []
        with self._write() as db:
            removed = prune(db, keep, keep_bytes, gone)
        self.blob_files.unlink(gone)
        return removed

    def depth(self) -> Depth:
        """How much the journal holds: change sets, kept bytes, oldest and newest ids."""
        from stringsh.workspace.keep import depth

        return depth(self.db)

    def pruned_undo(self, topic: str) -> int | None:
        """The newest change of this client's topic that `/undo` could have taken back but a prune forgot."""
        row = self.db.execute("SELECT cs FROM pruned_undo WHERE client=? AND topic=?", (self.client, topic)).fetchone()
        return row[0] if row else None

    def ever_made(self, cs: int) -> bool:
        """Whether change id `cs` was ever given out (so one missing now was pruned, not mistyped)."""
        row = self.db.execute("SELECT seq FROM sqlite_sequence WHERE name='changesets'").fetchone()
        return 0 < cs <= (row[0] if row else 0)

    def later_change(self, path: str, after: int) -> ChangeRow | None:
        """The newest change set after `after` that wrote `path` and is not reverted: the one to revert first."""
        row = self.db.execute(
            f"{CHANGE_COLUMNS} WHERE c.id > ? AND c.state='done' AND c.reverted_by IS NULL AND c.id IN "
            "(SELECT cs FROM files WHERE path=? UNION SELECT cs FROM tree_ops WHERE path=?) ORDER BY c.id DESC LIMIT 1",
            (after, stored(path), stored(path)),
        ).fetchone()
        return ChangeRow(*row) if row else None

    def undo_depth(self, topic: str) -> int:
        row = self.db.execute(f"SELECT COUNT(*) {UNDOABLE}", (topic, self.client)).fetchone()
        return int(row[0])

    def history(self, limit: int = 50, before: int | None = None) -> list[ChangeRow]:
        """Newest first; only ids below `before` when given (a page of an older part of the journal)."""
        rows = self.db.execute(f"{CHANGE_COLUMNS} WHERE c.id < ? ORDER BY c.id DESC LIMIT ?",
                               (before if before is not None else 2**62, limit)).fetchall()
        return [ChangeRow(*row) for row in rows]


def _insert_tree(db: sqlite3.Connection, cs: int, tree: tuple[TreeOp, ...]) -> None:
    db.executemany("INSERT INTO tree_ops VALUES (?,?,?,?,?,?,?)",
                   [(cs, k, stored(op.path), op.kind, op.action, op.mode, stored(op.target))
                    for k, op in enumerate(tree)])


def _mark_reverted(db: sqlite3.Connection, cs: int, reverts: int) -> None:
    """`cs` reverted `reverts`; when `reverts` was itself a `/revert` (an undoable apply that reverted X), X holds its
    bytes again and is no longer reverted."""
    db.execute("UPDATE changesets SET reverted_by=? WHERE id=?", (cs, reverts))
    db.execute(
        "UPDATE changesets SET reverted_by=NULL WHERE reverted_by=? AND id=(SELECT reverts FROM changesets "
        "WHERE id=? AND kind='apply')", (reverts, reverts),
    )
