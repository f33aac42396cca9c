"""The persistent symbol index of a workspace: one SQLite file in the user's state folder
(`Workspace.symbol_index_path`) holding, per source file, what `/symbols` needs to answer without parsing it again.

Each file's rows are keyed by its path and identity (device, inode, size, mtime_ns) and carry its content hash:
a search still walks the tree (the walk's rules and counts are the engine's), and a file whose identity the walk
sees differ from its row is read and parsed again, as before. Tables (`SCHEMA_VERSION`):

    meta(key, value)            version, the workspace's real path, the masking and read-limit fingerprint
    files(id, path, dev, ino, size, mtime_ns, sha256, language, words, symbols)
                                words: the file's runs of word characters, lowercased, once each (what a name
                                must be part of); symbols:
                                its SymbolIndex (marshal); names: the ids of the names it holds (marshal);
                                defined: its symbols' qualified names, lowercased, one a line; plain: 1 when
                                no part of its bytes can be masked (its names are shown as they are)
    symbols(file, ordinal, id, qualified, name, kind, start_line, end_line)     0-based lines, end exclusive
    names(id, name)             every identifier's text, once
    occurrences(name, file, line, col, role, container, via)
                                every identifier as `--refs` reports it (render/code/occurrences.py): name:
                                names.id; line and col 1-based, col in characters; role by scope; container: the
                                id of the innermost symbol holding it ("" at top level); via: what a qualified or
                                member access reaches through, or the module an import names
    occurrence_rows             a view of occurrences with the name and path as text

Only files whose text masking leaves unchanged are stored: a secret's text never reaches the file. The file is a
cache: one of another version, another workspace or another masking is emptied; one SQLite cannot read is deleted
and made again; a locked one is passed over for that request. No error here ever fails a search (`broken` says
why the index was not used).
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import sqlite3
import stat
import threading
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from stringsh.documents.indexwish import served
from stringsh.render.code.cache import look_elsewhere
from stringsh.render.code.index import SYMBOL_VERSION, SymbolIndex

if TYPE_CHECKING:
    from stringsh.render.code.extract import Extracted
    from stringsh.workspace import Traversal, Workspace

SCHEMA_VERSION = 5
#: Seconds a statement waits for another process's write before the index is passed over for this request.
BUSY_SECONDS = 0.25
#: Symbol indexes kept in memory once loaded (by content hash), the oldest dropped first.
KEPT_INDEXES = 4096
#: (device, inode, size, mtime_ns)
Identity = tuple[int, int, int, int]
#: One identifier's occurrence: 1-based line and column (characters), role, container id, via.
Row = tuple[int, int, str, str, str]

_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE files(id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, dev INTEGER, ino INTEGER, size INTEGER,
                   mtime_ns INTEGER, sha256 TEXT NOT NULL, language TEXT NOT NULL, words BLOB NOT NULL,
                   symbols BLOB NOT NULL, names BLOB NOT NULL, defined BLOB NOT NULL, plain INTEGER NOT NULL);
CREATE TABLE symbols(file INTEGER NOT NULL, ordinal INTEGER NOT NULL, id TEXT NOT NULL, qualified TEXT NOT NULL,
                     name TEXT NOT NULL, kind TEXT NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,
                     PRIMARY KEY(file, ordinal)) WITHOUT ROWID;
CREATE INDEX files_sha256 ON files(sha256);
CREATE INDEX symbols_name ON symbols(name);
CREATE TABLE names(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE occurrences(name INTEGER NOT NULL, file INTEGER NOT NULL, line INTEGER NOT NULL, col INTEGER NOT NULL,
                         role TEXT NOT NULL, container TEXT NOT NULL, via TEXT NOT NULL,
                         PRIMARY KEY(name, file, line, col)) WITHOUT ROWID;
CREATE VIEW occurrence_rows AS
    SELECT names.name AS name, files.path AS path, line, col, role, container, via
    FROM occurrences JOIN names ON names.id = occurrences.name JOIN files ON files.id = occurrences.file;
"""


@dataclass(frozen=True)
class Walked:
    """What a finished pass of a running process's indexer saw of the whole workspace: each source file the walk
    offered, in walk order, with how it is held (`stored` in the index, `remembered` in this process's memory:
    masking changes its text, `never`: unreadable as text) and the walk's counts when it was offered; `final`, the
    counts at the end; `folders`, the identity (device, inode, mtime_ns) of every folder holding them and of the
    root, and of each `.gitignore`, as the pass began. Valid while the watcher reports no change since the pass
    began (`SymbolStore.live`) and every file and folder still has the identity recorded (`unchanged`): a file made,
    removed or renamed changes its folder's mtime, a file written its own."""

    files: list[tuple[str, Identity, str, Traversal]]
    final: Traversal
    generation: int
    fingerprint: str
    root: str
    folders: dict[str, tuple[int, ...]]

    def __post_init__(self) -> None:
        root = self.root.rstrip("/") + "/"
        checks = [(root + rel, identity[1], identity[2], identity[3]) for rel, identity in self.folders.items()]
        checks += [(root + rel, key[1], key[2], key[3]) for rel, key, _, _ in self.files]
        object.__setattr__(self, "_checks", checks)

    def unchanged(self) -> bool:
        """Whether every file, folder and `.gitignore` still has the identity the pass saw (inode, size, mtime; by
        lstat only: a file in an answer is met again through the engine before it is read)."""
        lstat = os.lstat
        try:
            for path, ino, size, mtime in self._checks:  # type: ignore[attr-defined]
                st = lstat(path)
                if st.st_mtime_ns != mtime or st.st_ino != ino or st.st_size != size:
                    return False
        except OSError:
            return False
        return True


def folder_identity(st: os.stat_result) -> tuple[int, ...]:
    """What changes when a folder's entries change (or a file is written): device, inode, size, mtime, ctime."""
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


@dataclass(frozen=True)
class Stored:
    """A file's row: its id in the tables, identity and content hash, and what tells whether a search can find
    anything in it without loading its rows: its words and its definitions' lowercased qualified names."""

    id: int
    key: Identity
    sha256: str
    words: bytes = b""
    defined: bytes = b""
    plain: bool = False


def fingerprint(ws: Workspace) -> str:
    """What decides which text of a file may be stored and read: the masking and the read limits."""
    shown = ws.redactor
    limits = (ws.policy.limits.max_read_bytes, ws.policy.secrets.allow_hardlinks)
    return hashlib.sha256(repr((shown.sources, shown.replacement, limits)).encode()).hexdigest()


class SymbolStore:
    """One process's connection to a workspace's index file; every method is safe to call from any thread and
    answers None (or does nothing) when the index cannot be used."""

    def __init__(self, path: Path, root: str, fingerprint: str) -> None:
        self.path, self.root, self.fingerprint = path, root, fingerprint
        self.broken: str | None = None
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = None
        self._files: dict[str, Stored] = {}
        self._version = -1  # PRAGMA data_version when _files was loaded
        self._indexes: OrderedDict[str, SymbolIndex] = OrderedDict()  # sha256 → loaded index
        #: Bumped by the watcher for every change that may change a walk of the workspace (symbolindexer.py).
        self.generation = 0
        #: The last finished pass's walk, when a running process keeps the index fresh.
        self.walked: Walked | None = None
        #: The folders (and `.gitignore` files) the last finished pass found (symbolindexer._folders).
        self.folder_names: set[str] | None = None

    def changed(self) -> None:
        """The watcher saw a change: the last pass's walk no longer stands for the tree."""
        self.generation += 1

    def live(self) -> Walked | None:
        """The last pass's walk while nothing changed since it began (a search may then skip walking)."""
        walked = self.walked
        if walked is None or walked.generation != self.generation or walked.fingerprint != self.fingerprint:
            return None
        return walked if walked.unchanged() else None

    # -- opening ----------------------------------------------------------------------------------------------

    def _connection(self, create: bool) -> sqlite3.Connection | None:
        """The open connection; None when the index cannot be used now, or does not exist and `create` is False
        (a search never makes it: only a running process's indexer does)."""
        if self._conn is not None:
            return self._conn
        for attempt in range(2):
            if not create and not os.path.lexists(self.path):
                return None
            try:
                self._conn = self._open()
                self.broken = None
                return self._conn
            except sqlite3.OperationalError as exc:
                if _busy(exc):
                    self.broken = f"locked: {exc}"
                    return None
                self.broken = f"unusable: {exc}"
            except (sqlite3.DatabaseError, ValueError, OSError) as exc:
                self.broken = f"unusable: {exc}"
            self.close()
            if attempt == 0:
                self._delete()
        return None

    def _open(self) -> sqlite3.Connection:
        with contextlib.suppress(FileNotFoundError):
            if not stat.S_ISREG(os.lstat(self.path).st_mode):  # a link or FIFO where the index belongs
                raise ValueError("not a regular file")
        conn = sqlite3.connect(self.path, timeout=BUSY_SECONDS, isolation_level=None, check_same_thread=False)
        try:
            os.chmod(self.path, 0o600)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            # the symbol rules' version too: rows another version's rules found are not this one's
            wanted = {"version": f"{SCHEMA_VERSION}.{SYMBOL_VERSION}", "root": self.root,
                      "fingerprint": self.fingerprint}
            meta = dict(conn.execute("SELECT key, value FROM meta")) if "meta" in tables else {}
            if meta != wanted:  # new, another version, another workspace or another masking: start empty
                conn.execute("BEGIN IMMEDIATE")
                for kind, name in conn.execute("SELECT type, name FROM sqlite_master WHERE type IN ('view', 'table')"
                                               ).fetchall():
                    conn.execute(f'DROP {kind.upper()} IF EXISTS "{name}"')
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.executemany("INSERT INTO meta VALUES (?, ?)", wanted.items())
                conn.execute("COMMIT")
        except BaseException:
            conn.close()
            raise
        return conn

    def _delete(self) -> None:
        for suffix in ("", "-wal", "-shm"):
            with contextlib.suppress(OSError):
                os.unlink(f"{self.path}{suffix}")

    def close(self) -> None:
        with self._lock:
            conn, self._conn = self._conn, None
            self._files, self._version = {}, -1
            if conn is not None:
                with contextlib.suppress(sqlite3.Error):
                    conn.close()

    @contextlib.contextmanager
    def _using(self, create: bool = False) -> Iterator[sqlite3.Connection | None]:
        """The connection under the lock; an SQLite error closes it (and a damaged file is deleted, to be made
        again by the next indexer) instead of reaching the caller."""
        with self._lock:
            conn = self._connection(create)
            try:
                yield conn
            except sqlite3.Error as exc:
                if conn is not None and conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        conn.execute("ROLLBACK")
                busy = isinstance(exc, sqlite3.OperationalError) and _busy(exc)
                self.broken = f"{'locked' if busy else 'unusable'}: {exc}"
                self.close()
                if not busy:
                    self._delete()

    # -- reading ----------------------------------------------------------------------------------------------

    def files(self) -> dict[str, Stored]:
        """path → its row, reloaded when another connection changed the file since."""
        with self._using() as conn:
            if conn is None:
                return {}
            version = conn.execute("PRAGMA data_version").fetchone()[0]
            if version != self._version or not self._files:
                rows = conn.execute("SELECT id, path, dev, ino, size, mtime_ns, sha256, words, defined, plain "
                                    "FROM files")
                self._files = {row[1]: Stored(row[0], row[2:6], *row[6:9], bool(row[9]))  # type: ignore[arg-type]
                               for row in rows}
                self._version = version
            return self._files
        return {}

    def snapshot(self) -> Snapshot:
        """The rows as one search sees them (loaded once per search, not per file)."""
        return Snapshot(self, self.files())

    def occurrences_of(self, name: str) -> dict[int, list[Row]] | None:
        """file id → each identifier spelled `name` there (line, column, role, container, via), in source order."""
        with self._using() as conn:
            if conn is None:
                return None
            found: dict[int, list[Row]] = {}
            for file_id, *row in conn.execute(
                    "SELECT file, line, col, role, container, via FROM occurrences "
                    "WHERE name = (SELECT id FROM names WHERE name = ?) ORDER BY file, line, col", (name,)):
                found.setdefault(file_id, []).append(tuple(row))  # type: ignore[arg-type]
            return found
        return None

    def index(self, stored: Stored) -> SymbolIndex | None:
        """A file's symbol index (the last ones loaded are kept in memory, by content)."""
        found = self._indexes.get(stored.sha256)
        if found is not None:
            return found
        with self._using() as conn:
            if conn is None:
                return None
            row = conn.execute("SELECT symbols FROM files WHERE id = ?", (stored.id,)).fetchone()
            if row is None:
                return None
            try:
                found = SymbolIndex.from_tuple(marshal.loads(row[0]))
            except (ValueError, TypeError, EOFError, IndexError):
                return None  # a row this version cannot read: the file is parsed again
            self._indexes[stored.sha256] = found
            while len(self._indexes) > KEPT_INDEXES:
                self._indexes.popitem(last=False)
            return found
        return None

    def by_content(self, sha256: str, language: str) -> SymbolIndex | None:
        """The symbol index of a file whose bytes hash to `sha256`, read as `language`, when the index holds one."""
        with self._using() as conn:
            if conn is None:
                return None
            row = conn.execute("SELECT id, path, dev, ino, size, mtime_ns FROM files WHERE sha256 = ? AND language = ?"
                               " LIMIT 1", (sha256, language)).fetchone()
            if row is None:
                return None
            return self.index(Stored(row[0], row[2:6], sha256))  # type: ignore[arg-type]
        return None

    def size(self) -> int:
        """Bytes of the index file and its write-ahead log."""
        return sum(os.path.getsize(f"{self.path}{s}") for s in ("", "-wal") if os.path.exists(f"{self.path}{s}"))

    # -- writing ----------------------------------------------------------------------------------------------

    def put(self, entries: Sequence[tuple[str, Identity, str, bytes, bool, Extracted]]) -> None:
        """Store files' rows (path, identity, sha256, words, plain, extraction) in one transaction, replacing older
        rows."""
        if not entries:
            return
        with self._using(create=True) as conn:
            if conn is None:
                return
            conn.execute("BEGIN IMMEDIATE")
            for rel, key, sha, words, plain, extracted in entries:
                self._drop(conn, rel)
                index = extracted.index
                ids = self._name_ids(conn, {o.name for o in extracted.occurrences})
                defined = "\n".join(row[0].lower() for row in index.rows).encode("utf-8", "surrogatepass")
                cursor = conn.execute(
                    "INSERT INTO files(path, dev, ino, size, mtime_ns, sha256, language, words, symbols, names, "
                    "defined, plain) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (rel, *key, sha, index.language, words, marshal.dumps(index.to_tuple()),
                     marshal.dumps(sorted(ids.values())), defined, int(plain)))
                file_id = cursor.lastrowid
                conn.executemany("INSERT INTO symbols VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                 [(file_id, i, index.ids[i], *row[:5]) for i, row in enumerate(index.rows)])
                conn.executemany("INSERT OR IGNORE INTO occurrences VALUES (?, ?, ?, ?, ?, ?, ?)",
                                 [(ids[o.name], file_id, o.line, o.column, o.role, o.container, o.via)
                                  for o in extracted.occurrences])
            conn.execute("COMMIT")
            self._version = -1  # this connection's own writes leave PRAGMA data_version as it was

    def drop(self, paths: Sequence[str]) -> None:
        """Forget files (gone, or no longer storable)."""
        if not paths:
            return
        with self._using() as conn:
            if conn is None:
                return
            conn.execute("BEGIN IMMEDIATE")
            for rel in paths:
                self._drop(conn, rel)
            conn.execute("COMMIT")
            self._version = -1

    @staticmethod
    def _name_ids(conn: sqlite3.Connection, names: set[str]) -> dict[str, int]:
        conn.executemany("INSERT OR IGNORE INTO names(name) VALUES (?)", [(name,) for name in names])
        ids: dict[str, int] = {}
        listed = list(names)
        for start in range(0, len(listed), 500):
            chunk = listed[start : start + 500]
            marks = ",".join("?" * len(chunk))
            ids.update(conn.execute(f"SELECT name, id FROM names WHERE name IN ({marks})", chunk))
        return ids

    @staticmethod
    def _drop(conn: sqlite3.Connection, rel: str) -> None:
        row = conn.execute("SELECT id, names FROM files WHERE path = ?", (rel,)).fetchone()
        if row is None:
            return
        file_id, names = row
        conn.executemany("DELETE FROM occurrences WHERE name = ? AND file = ?",
                         [(name, file_id) for name in marshal.loads(names)])
        conn.execute("DELETE FROM symbols WHERE file = ?", (file_id,))
        conn.execute("DELETE FROM files WHERE id = ?", (file_id,))


class Snapshot:
    """One search's view of the index: the files' rows (loaded once per search, not per file), and the
    occurrences of the name a `--refs` search asks for (one query)."""

    def __init__(self, store: SymbolStore, files: dict[str, Stored]) -> None:
        self.store, self.files = store, files
        self._occurrences: dict[str, dict[int, list[Row]] | None] = {}

    def known(self, rel: str, key: Identity | None) -> Stored | None:
        """The row of a file the walk met, when its identity is the one stored."""
        found = self.files.get(rel) if key is not None else None
        return found if found is not None and found.key == key else None

    def occurrences(self, stored: Stored, name: str) -> list[Row] | None:
        """The identifiers spelled `name` in a file (line, column, role, container, via), [] for none; None when
        the index cannot say."""
        if name not in self._occurrences:
            self._occurrences[name] = self.store.occurrences_of(name)
        found = self._occurrences[name]
        return None if found is None else found.get(stored.id, [])


def _busy(exc: sqlite3.OperationalError) -> bool:
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def kick(ws: Workspace) -> None:
    """A search is about to run: in a running process serving this workspace (documents/indexwish.py), make sure its
    indexer is going."""
    if served(ws.root):
        from stringsh.documents.symbolindexer import start_indexing

        with contextlib.suppress(Exception):
            start_indexing(ws)


_STORES: dict[tuple[str, str], SymbolStore] = {}
_STORES_LOCK = threading.Lock()


def store_for(ws: Workspace) -> SymbolStore | None:
    """The index of this workspace in this process (one connection per index file and fingerprint); None when
    the state folder cannot hold one (read-only, degraded)."""
    try:
        path = ws.symbol_index_path
    except Exception:  # a state folder that cannot be made: searched as before, without the index
        return None
    mark = fingerprint(ws)
    with _STORES_LOCK:
        found = _STORES.get((str(path), mark))
        if found is None:
            found = _STORES[(str(path), mark)] = SymbolStore(path, str(ws.root), mark)
        return found


def by_content(sha256: str, language: str) -> SymbolIndex | None:
    """An outline a running process's index already holds (render/code/cache.py asks before parsing)."""
    with _STORES_LOCK:
        stores = list(_STORES.values())
    for store in stores:
        found = store.by_content(sha256, language)
        if found is not None:
            return found
    return None


look_elsewhere(by_content)


def forget_stores() -> None:
    """Close every connection this process holds (tests, benchmarks: a cold start without a new process)."""
    with _STORES_LOCK:
        stores = list(_STORES.values())
        _STORES.clear()
    for store in stores:
        store.close()
