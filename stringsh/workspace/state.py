"""`.stringsh/` and what lives in it: journal, blobs, lock, audit log, shell spool and index cache.

`EngineState` is the only place that knows these paths (and where the user's cache-signing key lives), so
moving engine state elsewhere is a change here alone. It also owns what a workspace must not share with
another one in the same process: the fsync workers and the sandbox probe.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from stringsh.errors import StringError
from stringsh.workspace.atomic import FsyncPool
from stringsh.workspace.audit import AuditLog
from stringsh.workspace.paths import DIR_FLAGS, STATE_DIR, Confiner, spool_folder

if TYPE_CHECKING:
    from stringsh.workspace.journal import Journal
    from stringsh.workspace.shell.providers import BwrapProbe
    from stringsh.workspace.userkey import UserKey

STATE_IGNORE = "# stringsh engine state (journal, audit log); not for version control\n*\n"
JOURNAL_FILE = "journal.db"
AUDIT_FILE = "audit.log"
LOCK_FILE = "lock"


class AuditNote:
    """What an audited block adds to its record: the change set it made, an outcome other than "ok"."""

    __slots__ = ("change", "outcome")

    def __init__(self) -> None:
        self.change: int | None = None
        self.outcome: str | None = None


class EngineState:
    """Created lazily: a workspace that is only read gets `.stringsh/` on its first audited operation."""

    def __init__(self, confiner: Confiner, state_dir: Path | None, frontend: str) -> None:
        self.confiner = confiner
        self.frontend = frontend
        self.thread_lock = threading.RLock()
        self.fsync_pool = FsyncPool()
        self._bwrap_probe: BwrapProbe | None = None
        self._user_key: UserKey | None = None
        self._dir = state_dir
        self._depth = 0
        self._lock_fd = -1
        self._journal: Journal | None = None
        self._audit: AuditLog | None = None

    def close(self) -> None:
        with self.thread_lock:
            if self._journal is not None:
                self._journal.close()
                self._journal = None
            if self._audit is not None:
                self._audit.close()
                self._audit = None
            if self._lock_fd >= 0:
                os.close(self._lock_fd)
                self._lock_fd = -1
            self.fsync_pool.close()

    # -- paths ------------------------------------------------------------------------------------------------

    @property
    def dir(self) -> Path:
        """`.stringsh/` under the root, created without following a planted symlink."""
        if self._dir is None:
            with contextlib.suppress(FileExistsError):
                os.mkdir(STATE_DIR, 0o700, dir_fd=self.confiner.root_fd)
            try:
                fd = os.open(STATE_DIR, DIR_FLAGS, dir_fd=self.confiner.root_fd)
            except OSError:
                raise StringError("NOT_PERMITTED", f"{STATE_DIR}/ is not a folder stringsh can use.") from None
            os.close(fd)
            self._dir = self.confiner.real / STATE_DIR
            ignore = self._dir / ".gitignore"
            if not ignore.exists():
                with contextlib.suppress(OSError):
                    ignore.write_text(STATE_IGNORE, encoding="utf-8")
        else:
            self._dir.mkdir(parents=True, exist_ok=True)
        return self._dir

    @property
    def audit_path(self) -> Path:
        return self.dir / AUDIT_FILE

    @property
    def spool_dir(self) -> Path:
        """Shell output spool files; a path only (the shell creates it, private, on its first long output)."""
        return spool_folder(self.confiner.real)

    @property
    def index_cache_dir(self) -> Path:
        """Disk part of the index cache; a path only. Reach it from the workspace root without following links."""
        return self.confiner.real / STATE_DIR / "cache" / "index"

    def cache_key(self) -> bytes | None:
        """This user's secret for signing index-cache entries (created on first use); None: no disk cache."""
        with self.thread_lock:
            if self._user_key is None:
                from stringsh.workspace.userkey import UserKey

                self._user_key = UserKey()
            key = self._user_key
        return key.get()

    @property
    def bwrap_probe(self) -> BwrapProbe:
        """Whether bubblewrap works here, asked once per workspace (not once per process)."""
        with self.thread_lock:
            if self._bwrap_probe is None:
                from stringsh.workspace.shell.providers import BwrapProbe

                self._bwrap_probe = BwrapProbe()
            return self._bwrap_probe

    def has_journal(self) -> bool:
        return (self.confiner.real / STATE_DIR / JOURNAL_FILE).exists() if self._dir is None else True

    # -- journal and lock -------------------------------------------------------------------------------------

    @property
    def journal(self) -> Journal:
        with self.thread_lock:
            if self._journal is None:
                from stringsh.workspace.journal import Journal  # sqlite3 loads with the first journal only

                self._journal = Journal(self.dir / JOURNAL_FILE)
            return self._journal

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Exclusive across threads and processes; re-entrant within a thread. Recovers crashed change sets."""
        with self.thread_lock:
            if self._depth == 0:
                if self._lock_fd < 0:
                    self._lock_fd = os.open(self.dir / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
                fcntl.flock(self._lock_fd, fcntl.LOCK_EX)
            self._depth += 1
            try:
                if self._depth == 1:
                    from stringsh.workspace import changes

                    for cs in self.journal.pending():
                        changes.recover(self.journal, self.confiner, cs, self.fsync_pool)
                yield
            finally:
                self._depth -= 1
                if self._depth == 0:
                    fcntl.flock(self._lock_fd, fcntl.LOCK_UN)

    # -- audit ------------------------------------------------------------------------------------------------

    @contextlib.contextmanager
    def audited(self, op: str, paths: list[str], topic: str | None) -> Iterator[AuditNote]:
        """Record the operation, its outcome (ok, the note's outcome or the error code) and duration when the
        block ends; an unexpected exception is recorded as `INTERNAL_ERROR:<type>`."""
        started = time.perf_counter()
        note = AuditNote()
        outcome = "ok"
        try:
            yield note
            outcome = note.outcome or outcome
        except StringError as exc:
            outcome = exc.code
            raise
        except BaseException as exc:
            outcome = f"INTERNAL_ERROR:{type(exc).__name__}"
            raise
        finally:
            self.record(op, paths, topic, outcome, (time.perf_counter() - started) * 1000, note.change)

    def record(self, op: str, paths: list[str], topic: str | None, outcome: str, ms: float,
               change: int | None) -> None:
        try:
            with self.thread_lock:
                if self._audit is None:
                    self._audit = AuditLog(self.audit_path)
            self._audit.append(op=op, topic=topic or "-", frontend=self.frontend, paths=paths, outcome=outcome,
                               ms=ms, change_id=change)
        except (OSError, StringError):
            pass  # a read-only state folder must not stop reads; mutations fail earlier on the journal
