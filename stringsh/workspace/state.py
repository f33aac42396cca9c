"""`.stringsh/` and what lives in it: the change journal, the cross-process write lock and the audit log."""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from stringsh.errors import StringError
from stringsh.workspace import changes
from stringsh.workspace.audit import AuditLog
from stringsh.workspace.journal import Journal
from stringsh.workspace.paths import DIR_FLAGS, STATE_DIR, Confiner

STATE_IGNORE = "# stringsh engine state (journal, audit log); not for version control\n*\n"


class EngineState:
    """Created lazily: a workspace that is only read gets `.stringsh/` on its first audited operation."""

    def __init__(self, confiner: Confiner, state_dir: Path | None, frontend: str) -> None:
        self.confiner = confiner
        self.frontend = frontend
        self.thread_lock = threading.RLock()
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

    def has_journal(self) -> bool:
        return (self.confiner.real / STATE_DIR / "journal.db").exists() if self._dir is None else True

    @property
    def journal(self) -> Journal:
        with self.thread_lock:
            if self._journal is None:
                self._journal = Journal(self.dir / "journal.db")
            return self._journal

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Exclusive across threads and processes; re-entrant within a thread. Recovers crashed change sets."""
        with self.thread_lock:
            if self._depth == 0:
                if self._lock_fd < 0:
                    self._lock_fd = os.open(self.dir / "lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
                fcntl.flock(self._lock_fd, fcntl.LOCK_EX)
            self._depth += 1
            try:
                if self._depth == 1:
                    for cs in self.journal.pending():
                        changes.recover(self.journal, self.confiner, cs)
                yield
            finally:
                self._depth -= 1
                if self._depth == 0:
                    fcntl.flock(self._lock_fd, fcntl.LOCK_UN)

    @contextlib.contextmanager
    def audited(self, op: str, paths: list[str], topic: str | None) -> Iterator[dict[str, int]]:
        """Record the operation, its outcome (ok or the error code) and duration when the block ends."""
        started = time.perf_counter()
        info: dict[str, int] = {}
        outcome = "ok"
        try:
            yield info
        except StringError as exc:
            outcome = exc.code
            raise
        except BaseException as exc:
            outcome = f"INTERNAL_ERROR:{type(exc).__name__}"
            raise
        finally:
            self.record(op, paths, topic, outcome, (time.perf_counter() - started) * 1000, info.get("change"))

    def record(self, op: str, paths: list[str], topic: str | None, outcome: str, ms: float,
               change: int | None) -> None:
        try:
            with self.thread_lock:
                if self._audit is None:
                    self._audit = AuditLog(self.dir / "audit.log")
            self._audit.append(op=op, topic=topic or "-", frontend=self.frontend, paths=paths, outcome=outcome,
                               ms=ms, change_id=change)
        except (OSError, StringError):
            pass  # a read-only state folder must not stop reads; mutations fail earlier on the journal
