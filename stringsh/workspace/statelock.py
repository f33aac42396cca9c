"""The workspace lock, crash recovery and degraded mode: `EngineState`'s part that decides when a change may go.

The lock is an flock in the state folder, re-entrant within a thread and exclusive across threads and processes;
taking it first finishes or undoes the change sets a crash left pending (changes.recover_all), and letting it go drops
the `recovery-due` marker once nothing is pending (journalfile.py). A change that cannot get the lock within
`lock_wait` seconds is refused BUSY. A state folder that is full, read-only, unwritable or locked too long is a
condition, not damage (journalfile.fault): `read_only` then says why, reads go on, and every change is refused with
the code until one gets through (the next change set written clears it).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

from stringsh.workspace.journalfile import (
    NEARLY_FULL,
    JournalUnavailable,
    mark_in_flight,
    open_journal,
    recovery_due,
    settled,
)
from stringsh.workspace.oserrors import mount_of
from stringsh.workspace.statefolder import LOCK_FILE, StateFolder

if TYPE_CHECKING:
    from stringsh.workspace.atomic import FsyncPool
    from stringsh.workspace.flockwait import FlockWait
    from stringsh.workspace.journal import Journal

#: The codes of a condition that can clear without a restart (degraded mode: see `read_only`).
DEGRADED = frozenset({"NO_SPACE", "READ_ONLY", "IO_ERROR", "BUSY"})
LOCK_WAIT = 30.0
#: Held shared by every process waiting for the workspace lock (others_waiting).
WANTS_FILE = "lock.wants"


class StateLock(StateFolder):
    """The journal, the lock and its recovery, and degraded mode, over the state folder."""

    client: str
    fsync_pool: FsyncPool
    lock_wait: float
    _depth: int
    _owner: int
    _lock_fd: int
    _wants_fd: int
    _lock_waiter: FlockWait | None
    _journal: Journal | None
    _unsettled: bool
    _stamped_journal: bool
    _wrote: bool

    if TYPE_CHECKING:
        def audit_head(self) -> tuple[int, str]: ...  # staterecords.StateRecords

    # -- journal and lock -------------------------------------------------------------------------------------

    @property
    def journal(self) -> Journal:
        with self.thread_lock:
            if self._journal is None:
                try:
                    self._journal = self.open_journal()
                except JournalUnavailable as exc:
                    raise self._degrade(exc) from None
            return self._journal

    def open_journal(self) -> Journal:
        """Open this workspace's journal (journalfile.open_journal; JournalUnavailable when it cannot be used), its
        change sets marked in flight beside it (journalfile.py). Called once, on first use."""
        folder = self._folder_fd()
        # a journal is only kept for a tree the folder records: by its root's inode until the first change makes
        # the workspace's `.stringsh/` (workspace_folder) and leaves the tree's id there
        self._stamp(None)
        journal = open_journal(folder, self.path, self.client)
        journal.audit_head = self.audit_head
        journal.before_pending = lambda: self._mark_in_flight(folder)
        return journal

    def recovery_due(self) -> bool:
        """Whether a start must open the journal to finish a change set a crash cut short (journalfile.py): a few
        stats, no open; False when nothing is there yet."""
        return recovery_due(self.path)

    @contextlib.contextmanager
    def locked(self, *, chain: bool = False, settle: bool = False) -> Iterator[None]:
        """Exclusive across threads and processes; re-entrant within a thread. Recovers crashed change sets and puts
        queued ones in place (queued.py), unless `chain`: a group commit's writer that may queue onto them.
        `settle`: taken only to put queued changes in place, so its wait does not count as another writer's
        (`others_waiting`)."""
        with self.thread_lock:
            if self._depth == 0:
                if self._lock_fd < 0:
                    self._lock_fd = self._open_file(LOCK_FILE, os.O_RDWR | os.O_CREAT)
                self._take_lock(wants=not settle)
                self._owner = threading.get_ident()
            self._depth += 1
            try:
                if self._depth == 1:
                    from stringsh.workspace import changes
                    from stringsh.workspace.paths import found_names

                    self._wrote = False
                    pending, queued = self.journal.unfinished()
                    self._unsettled = self._unsettled or bool(pending) or bool(queued)
                    with found_names():  # the journal's own rows: a name that is not UTF-8 is put back too
                        changes.recover_all(self.journal, self.confiner, pending, self.fsync_pool)
                        if queued and not chain:
                            self.flush_queued(queued)
                yield
                if self._depth == 1 and self._wrote:
                    self.read_only = None  # a change set was written: whatever stopped changes has cleared
            except JournalUnavailable as exc:
                raise self._degrade(exc) from None
            finally:
                self._depth -= 1
                if self._depth == 0:
                    self._owner = 0
                    try:
                        self._settle()
                    finally:
                        fcntl.flock(self._lock_fd, fcntl.LOCK_UN)

    def flush_queued(self, queued: list[int] | None = None) -> None:
        """With the lock held: put the change sets other writers queued in place (queued.py)."""
        from stringsh.workspace.queued import flush

        queued = self.journal.queued() if queued is None else queued
        if queued:
            flush(self.journal, self.confiner, queued, self.fsync_pool)

    def await_release(self) -> None:
        """Without the lock: wait until no process holds it (a shared flock on a descriptor of its own, taken and let
        go at once; at most `lock_wait` seconds). Writers whose changes are queued (queued.py) wait so together for
        whoever puts them in place, rather than each taking the lock in turn."""
        from stringsh.workspace.flockwait import FlockWait

        fd = self._open_file(LOCK_FILE, os.O_RDWR | os.O_CREAT)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                FlockWait(fd, fcntl.LOCK_SH).claim(self.lock_wait)
        finally:
            os.close(fd)  # lets go of the shared lock (the waiting thread lets go of its own when it gets it late)

    def others_waiting(self) -> bool:
        """With the lock held: whether another process waits for it now (it holds `lock.wants` shared meanwhile)."""
        if self._wants_fd < 0:
            self._wants_fd = self._open_file(WANTS_FILE, os.O_RDWR | os.O_CREAT)
        try:
            fcntl.flock(self._wants_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        except OSError:
            return False
        fcntl.flock(self._wants_fd, fcntl.LOCK_UN)
        return False

    def holds_lock(self) -> bool:
        """Whether this thread holds the workspace lock now (it must not queue for it behind itself)."""
        return self._depth > 0 and self._owner == threading.get_ident()

    def _take_lock(self, *, wants: bool = True) -> None:
        """flock the workspace lock, waiting at most `lock_wait` seconds for another process to let it go (woken
        the moment it does: flockwait.py); then BUSY (and degraded until a change gets through), never a wait
        without end. The caller holds `thread_lock`: one wait per process at a time."""
        try:
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            pass
        from stringsh.workspace.flockwait import FlockWait  # only when another process holds the lock

        if wants and self._wants_fd < 0:
            self._wants_fd = self._open_file(WANTS_FILE, os.O_RDWR | os.O_CREAT)
        try:  # the holder sees someone waiting (others_waiting): its in-place edits may queue for us (queued.py)
            if wants:
                with contextlib.suppress(OSError):
                    fcntl.flock(self._wants_fd, fcntl.LOCK_SH)
            wait = self._lock_waiter
            taken = wait.claim(self.lock_wait) if wait is not None and wait.reusable else None
            if taken is None:
                self._lock_waiter = wait = FlockWait(self._lock_fd)
                taken = wait.claim(self.lock_wait)
        finally:
            if wants:
                with contextlib.suppress(OSError):
                    fcntl.flock(self._wants_fd, fcntl.LOCK_UN)
        if taken:
            return
        raise self._degrade(JournalUnavailable(
            self.path / LOCK_FILE, "locked", "BUSY",
            f"Another process has held the workspace lock {self.path / LOCK_FILE} for over {self.lock_wait:g} s; "
            "nothing was written.",
            "Wait for the other stringsh to finish (or stop it), then retry; reads still work.",
            "the workspace is locked by another process",
        ))

    def _degrade(self, exc: JournalUnavailable) -> JournalUnavailable:
        """Remember why changes are refused (the toolbar shows it) when it is a condition that can clear."""
        if exc.code in DEGRADED:
            self.read_only = exc.why
            from stringsh.workspace.healthstate import note_degraded

            with contextlib.suppress(Exception):  # a folder that cannot be opened keeps no note: the error says it
                note_degraded(self._folder_fd(), exc.code, exc.why)  # for a page watching from another process
        return exc

    def probe(self) -> str | None:
        """At start-up: why the state folder cannot take a change (read-only, unwritable, full), or None; a few
        stats of the folder, or of its nearest existing parent when it is not made yet. Sets `read_only`."""
        folder = self.path
        while not folder.is_dir() and folder.parent != folder:
            folder = folder.parent
        try:
            st = os.statvfs(folder)
        except OSError:
            return self.read_only
        if st.f_flag & os.ST_RDONLY:
            why: str | None = f"the state folder {self.path} is on a read-only file system"
        elif not os.access(folder, os.W_OK):
            why = f"the state folder {folder} is not writable"
        elif st.f_bavail * st.f_frsize < NEARLY_FULL:
            why = f"no space left for the journal on {mount_of(folder)}"
        else:
            why = None
        self.read_only = self.read_only or why
        return self.read_only

    def _mark_in_flight(self, folder: int) -> None:
        """Journal.begin's first step: a start opens the journal until this lock ends with nothing pending."""
        self._unsettled = True
        mark_in_flight(folder, self.path)
        self._wrote = True

    def _settle(self) -> None:
        """Lock still held: when no change set is pending any more, a start need not open the journal (the
        `recovery-due` marker goes). Any doubt leaves the marker: it costs the next start one opening."""
        journal = self._journal
        if journal is None or not self._unsettled:
            return
        try:
            if any(journal.unfinished()):
                return
        except Exception:  # a journal that cannot say keeps the marker: recovery stays due
            return
        settled(self._folder_fd(), stamp=not self._stamped_journal)
        self._unsettled = False
        self._stamped_journal = True
