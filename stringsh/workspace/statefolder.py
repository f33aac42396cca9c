"""The state folder: where the engine keeps its state, and why there: nothing a workspace ships is ever believed.

Decision: the journal (with the previous bytes undo restores), the audit log and the lock live in the user's
state folder, one folder per workspace keyed by the workspace's real path:

    $XDG_STATE_HOME/stringsh/workspaces/<sha256(real path)[:32]>/     (0700, owned by the user)
        journal.db (+ -wal, -shm)   change sets and the previous bytes they replaced
        blobs/<sha256>              previous bytes of 128 KiB or more, one file each (blobfiles.py)
        audit.log                   the hash-chained audit records (audit.log.1: the older, rotated one)
        audit.head                  the current log's record count and newest hash (its end), the append lock
                                    (the journal anchors the head with every change set: journal.py)
        recovery-due                present while a change set may be in flight: a start opens the journal
                                    (journalfile.py); journal.marked: the journal follows that protocol
        lock                        flock between processes
        symbols.db (+ -wal, -shm)   the symbol index /symbols answers from (a cache: documents/symbolstore.py);
                                    deleting it is always safe, it is made again
        workspace                   the real path, for a person looking around
        identity                    which tree at that path it belongs to (identity.py): a folder re-created
                                    there gets a fresh state folder, this one renamed `<key>.replaced-<time>`

A repository cannot plant any of it. A committed `.stringsh/journal.db` is never opened (silently: it is simply
not where stringsh looks), so a pending change set it carries is never replayed. The alternative, keeping these
files in `.stringsh/` signed with the per-user key, still lets a clone bring back an old journal the same user
signed elsewhere, needs a MAC per row and an owner check per file, and leaves a planted link or FIFO one open()
away. The cost of the user's folder: a workspace that is moved or renamed starts a fresh journal (and so does a
tree re-created at the same path: the folder is keyed by the path but belongs to one tree).

What stays in the workspace's `.stringsh/`: shell spool files (a reply names `.stringsh/spool/<file>` and `/open`
reads it there), the index cache (entries signed with `cache_key`, rebuilt when they do not verify), the tree's
id (`workspace-id`, identity.py) and a `.gitignore`. That folder is created and opened without following
symlinks, private (0700); when something planted sits there (`.stringsh -> ../outside`), nothing is written
through it and changes are refused.

Every state file is opened with O_NOFOLLOW relative to a folder descriptor and must be a regular file (a FIFO is
refused at once, never waited on); a damaged journal is an INTERNAL_ERROR with a hint, never a traceback. A state
folder that is full, read-only, not writable or locked too long is a condition, not damage (journalfile.fault):
`read_only` then says why, reads go on, and every change is refused with the code until one gets through.
`StateFolder` (a part of `EngineState`, state.py) is the only code that knows these paths; statelock.py holds the
lock, recovery and degraded mode, staterecords.py the request and its audit records.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from stringsh.errors import StringError
from stringsh.workspace import atomic, identity
from stringsh.workspace.audit import AuditFiles
from stringsh.workspace.digest import sha256
from stringsh.workspace.journalfile import JOURNAL_FILE, fault
from stringsh.workspace.oserrors import DENIED, FULL
from stringsh.workspace.paths import STATE_DIR, Confiner, spool_folder

if TYPE_CHECKING:
    from stringsh.workspace.journalfile import JournalUnavailable

STATE_IGNORE = "# stringsh engine state (shell spool, index cache); not for version control\n*\n"
WORKSPACES = "workspaces"
AUDIT_FILE = "audit.log"
AUDIT_FILES = AuditFiles(AUDIT_FILE, f"{AUDIT_FILE}.1", "audit.head")
LOCK_FILE = "lock"
SYMBOL_INDEX_FILE = "symbols.db"
ROOT_NOTE = "workspace"
#: The errno values of a state folder that is full, read-only, unwritable or failing: changes wait, reads go on.
CONDITIONS = FULL | DENIED | {errno.EROFS, errno.EIO}
STATE_HINT = "It must be a folder you own, not a link; move it aside (or set STRINGSH_STATE_DIR) and retry."


def state_key(real: Path) -> str:
    """The folder name of a workspace's state: its real path hashed (fixed length, no path syntax)."""
    return sha256(os.fsencode(str(real))).hexdigest()[:32]


def state_folder(root: Path) -> Path:
    """The user's state folder of the workspace at `root` (a path only; for tools and tests)."""
    from stringsh.userdirs import state_dir

    return state_dir() / WORKSPACES / state_key(Path(os.path.realpath(root)))


class StateFolder:
    """The state folder's part of `EngineState`: its paths, opening it (private, owned, never through a link), which
    tree it belongs to, and the workspace's own `.stringsh/`. Nothing exists until first needed."""

    confiner: Confiner
    thread_lock: threading.RLock
    read_only: str | None
    _path: Path | None
    _keyed: bool
    _stamped: bool
    _dir_fd: int
    _local_ready: bool

    if TYPE_CHECKING:
        def _degrade(self, exc: JournalUnavailable) -> JournalUnavailable: ...  # statelock.StateLock

    # -- paths ------------------------------------------------------------------------------------------------

    @property
    def path(self) -> Path:
        """This workspace's folder in the user's state folder; a path only (nothing is created by asking)."""
        if self._path is None:
            self._path = state_folder(self.confiner.real)
        return self._path

    @property
    def dir(self) -> Path:
        """The state folder, created (private, owner-checked) on first use."""
        self._folder_fd()
        return self.path

    @property
    def audit_path(self) -> Path:
        return self.path / AUDIT_FILE

    @property
    def journal_path(self) -> Path:
        return self.path / JOURNAL_FILE

    @property
    def symbol_index_path(self) -> Path:
        """The symbol index's SQLite file (a cache the documents layer keeps); a path only."""
        return self.path / SYMBOL_INDEX_FILE

    @property
    def spool_dir(self) -> Path:
        """Shell output spool files; a path only (the shell creates it, private and link-free, on first need)."""
        return spool_folder(self.confiner.real)

    @property
    def index_cache_dir(self) -> Path:
        """Disk part of the index cache; a path only. Reach it from the workspace root without following links."""
        return self.confiner.real / STATE_DIR / "cache" / "index"

    def has_journal(self) -> bool:
        """Whether this user's journal for the workspace exists (a `.stringsh/journal.db` in it never counts), and
        belongs to this tree: one another tree left at this path is moved aside first (identity.py)."""
        if self._journal is not None:
            return True
        if not os.path.lexists(self.journal_path):
            return False
        self.check_identity()
        return os.path.lexists(self.journal_path)

    def check_identity(self) -> None:
        """At start-up: when a state folder exists at this workspace's path but belongs to another tree (the folder
        was re-created), move it aside and say so on stderr, once. Creates nothing when there is none."""
        if self._keyed and self._dir_fd < 0 and os.path.isdir(self.path):
            with contextlib.suppress(StringError):  # an unusable folder is reported where it is used
                self._folder_fd()

    # -- folders ----------------------------------------------------------------------------------------------

    def _folder_fd(self) -> int:
        fd = self._dir_fd
        if fd >= 0:
            return fd
        with self.thread_lock:
            if self._dir_fd < 0:
                self._dir_fd = self._open_folder()
            return self._dir_fd

    def _open_folder(self) -> int:
        """The per-workspace folder: its parent is the user's own (links there are the user's), the folder itself
        is opened without following a link, created 0700, and must belong to this user. A folder another tree left
        at this path is moved aside first (identity.py), under a lock on the parent every mover takes."""
        path = self.path
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            parent = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            try:
                if self._keyed:
                    fcntl.flock(parent, fcntl.LOCK_EX)  # released when closed
                fd = self._own_folder(parent, path)
                if self._keyed:
                    fd = self._same_tree(parent, fd, path)
            finally:
                os.close(parent)
        except OSError as exc:
            if exc.errno in CONDITIONS:  # a full, read-only, unwritable or failing disk: degraded, not broken
                raise self._degrade(fault(path, exc)) from None
            raise StringError(
                "INTERNAL_ERROR", f"stringsh cannot use its state folder {path}: {exc.strerror or exc}", STATE_HINT
            ) from None
        try:
            with contextlib.suppress(OSError):
                _create_once(fd, ROOT_NOTE, f"{self.confiner.real}\n")
        except BaseException:
            os.close(fd)
            raise
        return fd

    @staticmethod
    def _own_folder(parent: int, path: Path) -> int:
        """The state folder under `parent`, created 0700 when missing; refused when another user owns it."""
        fd = atomic.open_folders(parent, [path.name], create=True)
        try:
            if os.fstat(fd).st_uid != os.geteuid():
                raise StringError(
                    "INTERNAL_ERROR", f"stringsh cannot use its state folder {path}: another user owns it", STATE_HINT
                )
            atomic.make_private(fd)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _same_tree(self, parent: int, fd: int, path: Path) -> int:
        """`fd` when the state folder belongs to the tree at the root (or to none yet); else the folder is moved
        aside (kept, never replayed), the person told once on stderr, and a fresh one opened."""
        try:
            reason = identity.mismatch(fd, self.confiner.root_fd, self.confiner.real)
        except BaseException:
            os.close(fd)
            raise
        if reason is None:
            return fd
        os.close(fd)
        aside = identity.move_aside(parent, path.name)
        print(f"stringsh: this folder is not the workspace the journal knew ({reason}); its history was kept aside "
              f"in {path.parent / aside}", file=sys.stderr)
        return self._own_folder(parent, path)

    def _stamp(self, local_fd: int | None) -> None:
        """Record (once per process) which tree the state folder belongs to; `local_fd`: the workspace's
        `.stringsh/`, None when it cannot be written."""
        if self._stamped or not self._keyed:
            return
        with self.thread_lock:
            if not self._stamped:
                try:
                    identity.stamp(self._folder_fd(), self.confiner.root_fd, local_fd)
                except OSError:
                    return  # a read-only state folder: the journal cannot be written either
                self._stamped = local_fd is not None

    def _open_file(self, name: str, flags: int) -> int:
        try:
            return atomic.open_state_file(self._folder_fd(), name, flags)
        except OSError as exc:
            if exc.errno in CONDITIONS:
                raise self._degrade(fault(self.path / name, exc)) from None
            raise StringError(
                "INTERNAL_ERROR", f"stringsh cannot use its state file {self.path / name}: {exc.strerror or exc}",
                STATE_HINT,
            ) from None

    def workspace_folder(self) -> None:
        """Make sure the workspace's own `.stringsh/` (spool, index cache) is a private folder with its
        `.gitignore`, never following a planted link; NOT_PERMITTED when something else is there."""
        if self._local_ready:
            return
        try:
            fd = atomic.open_folders(self.confiner.root_fd, [STATE_DIR], create=True)
        except OSError:
            raise StringError("NOT_PERMITTED", f"{STATE_DIR}/ is not a folder stringsh can use.",
                              f"Move the {STATE_DIR} file away; stringsh keeps its state in that folder.") from None
        try:
            atomic.make_private(fd)
            with contextlib.suppress(OSError):
                _create_once(fd, ".gitignore", STATE_IGNORE)
            self._stamp(fd)
        finally:
            os.close(fd)
        self._local_ready = True


def _create_once(dir_fd: int, name: str, text: str) -> None:
    """Write a small file that does not exist yet; an existing one (or a link planted there) is left alone."""
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=dir_fd)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
