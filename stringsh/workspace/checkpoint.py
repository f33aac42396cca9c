"""Checkpoints of the change journal's WAL on a worker thread, so no change set waits for one.

SQLite's automatic checkpoint runs inside the commit that crosses its threshold: whichever change set's journal
record crosses 1000 pages copies the whole WAL into the database and fsyncs it before any of its files is
written (tens of milliseconds, one change set in ten at 100 files). The journal turns that off
(`wal_autocheckpoint=0`) and, once a change set is finished, asks this worker for a PASSIVE checkpoint on its
own connection when the WAL has grown past the same threshold.

Safe because: a passive checkpoint never blocks the writer and never touches frames it has not finished copying;
a crash in the middle of one leaves the WAL holding every frame (SQLite's recovery replays it); and the last
connection to close checkpoints whatever is left. The WAL is kept at `LIMIT` bytes once checkpointed
(`journal_size_limit`), so its size says how much it holds since.

A WAL resets only when a write starts after a checkpoint copied every frame; with change sets finishing back to
back a worker's checkpoint can keep trailing the newest frames, so past `HARD` bytes the finishing writer runs
the checkpoint itself before going on (the bound: `HARD` plus one change set).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from pathlib import Path
from urllib.parse import quote

#: Bytes of WAL past which a finished change set starts a checkpoint: SQLite's own default (1000 pages of 4 KiB).
LIMIT = 1000 * 4096
#: Bytes of WAL past which the writer checkpoints inline rather than on the worker.
HARD = 2 * LIMIT


class Checkpointer:
    """At most one checkpoint at a time, each on a short-lived thread with its own connection."""

    def __init__(self, path: Path, wal_path: str, limit: int = LIMIT, hard: int = HARD) -> None:
        self.uri = f"file:{quote(str(path))}?mode=rw"  # never creates a database
        self.wal_path = wal_path
        self.limit = limit
        self.hard = hard
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    def kick(self) -> None:
        """Start a checkpoint when the WAL holds more than `limit` bytes and none is running."""
        try:
            size = os.stat(self.wal_path).st_size
        except OSError:
            return
        if size <= self.limit:
            return
        if size > self.hard:
            self.wait()
            self._run()
            return
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self._thread = threading.Thread(target=self._run, name="stringsh-checkpoint", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        # An optimisation only: on any failure the next kick, or the last connection's close, checkpoints instead.
        with contextlib.suppress(sqlite3.Error, OSError):
            db = sqlite3.connect(self.uri, uri=True, timeout=0, isolation_level=None)
            try:
                db.execute("PRAGMA synchronous=NORMAL")  # fsync the WAL before copying, the database after
                db.execute("PRAGMA wal_checkpoint(PASSIVE)")
            finally:
                db.close()

    def wait(self) -> None:
        """Until the running checkpoint (if any) is over: before the journal's own connection closes."""
        with self._lock:
            thread = self._thread
        if thread is not None:
            thread.join()
