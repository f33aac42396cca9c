"""Big previous bytes kept as files beside the journal (`blobs/<sha>` in the engine's state folder).

A change set's previous bytes of `FILE_BLOB` bytes or more go to a file of their own rather than into the
journal's database: one write of the bytes instead of a chain of 4 KiB pages through the WAL, and no second copy
into the database when the WAL is checkpointed (1 MiB: ~0.7 ms against ~2.5 ms, plus the checkpoint's copy and
fsync). The row `blob_files(sha, size)` is written in the change set's own transaction, the file just before it;
the file and its folder are fsynced with the WAL (`Journal.seal`), before any file of the change set is renamed,
so a change set's record is never durable without the bytes its undo needs. A file is read back only when its
bytes hash to its name.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

from stringsh.errors import StringError
from stringsh.workspace import atomic
from stringsh.workspace.paths import DIR_FLAGS

#: Previous bytes this long or longer are kept as a file.
FILE_BLOB = 128 * 1024
BLOB_DIR = "blobs"


class BlobFiles:
    """The blob folder of one journal; callers serialise access (the workspace lock)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._dir_fd = -1
        #: Files written (or reused) for the change set being recorded, with their folder first: not yet fsynced.
        self._unsynced: list[int] = []

    def keep(self, db: sqlite3.Connection, sha: str, data: bytes) -> int:
        """Inside the change set's transaction: keep `data` as the file `sha` (written, not yet synced: `sync`
        does that before any file of the change set is renamed). Returns the bytes newly kept."""
        dir_fd = self._folder()
        if db.execute("SELECT 1 FROM blob_files WHERE sha=?", (sha,)).fetchone():
            try:  # kept already; synced again (nothing to write when it is) in case its change set never sealed
                self._sync_later(dir_fd, atomic.open_state_file(dir_fd, sha, os.O_RDONLY))
                return 0
            except OSError:
                db.execute("DELETE FROM blob_files WHERE sha=?", (sha,))  # lost: written again below
        # A file of that name that no row names was left by a crash before its change set was recorded: rewritten.
        fd = atomic.open_state_file(dir_fd, sha, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        except BaseException:
            os.close(fd)
            raise
        self._sync_later(dir_fd, fd)
        db.execute("INSERT INTO blob_files VALUES (?,?)", (sha, len(data)))
        return len(data)

    def _sync_later(self, dir_fd: int, fd: int) -> None:
        if not self._unsynced:
            self._unsynced.append(os.dup(dir_fd))  # the files' names, durable with them
        self._unsynced.append(fd)

    @property
    def unsynced(self) -> bool:
        return bool(self._unsynced)

    def sync(self, pool: atomic.FsyncPool | None, alongside: Callable[[], None]) -> None:
        """fsync the files written since the last sync and their folder (on `pool`'s threads while `alongside`
        runs here, when given), then close them."""
        try:
            if self._unsynced and pool is not None:
                pool.fsync_all(self._unsynced, alongside)
            else:
                for fd in self._unsynced:
                    os.fsync(fd)
                alongside()
        finally:
            self.drop()

    def drop(self) -> None:
        """Forget the unsynced files (their change set's transaction did not commit)."""
        for fd in self._unsynced:
            os.close(fd)
        self._unsynced.clear()

    def read(self, sha: str) -> bytes | None:
        """The kept bytes, or None when the file is missing or no longer holds exactly them."""
        try:
            data, _ = atomic.read_at(self._folder(), sha, sha)
        except (StringError, OSError):
            return None
        return data if atomic.sha256(data) == sha else None

    def unlink(self, shas: list[str]) -> None:
        """After the transaction that forgot them committed: remove their files (a crash in between leaves a file
        no row names: disk only, until the same bytes are kept again and it is rewritten)."""
        if shas:
            dir_fd = self._folder()
            for sha in shas:
                atomic.remove(dir_fd, sha)

    def _folder(self) -> int:
        """The blob folder, created private on first use (its name made durable then). The journal's folder is
        opened as the engine state opens it: not through a link itself, its parents are the user's own."""
        if self._dir_fd < 0:
            parent = os.open(self.folder.parent, DIR_FLAGS)
            try:
                made = not os.path.lexists(self.folder)
                self._dir_fd = atomic.open_folders(parent, [self.folder.name], create=True)
                if made:
                    os.fsync(parent)
            finally:
                os.close(parent)
        return self._dir_fd

    def close(self) -> None:
        self.drop()
        if self._dir_fd >= 0:
            os.close(self._dir_fd)
            self._dir_fd = -1
