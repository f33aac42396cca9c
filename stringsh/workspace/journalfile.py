"""Opening the change journal, and the marker that says whether a start must open it at all.

A start-up that only reads (`stringsh -c /ls`) must not pay for SQLite: the journal opens on the first change or
history read. What a start must never skip is crash recovery, so the journal's commit protocol keeps a marker
beside it in the user's state folder (state.py):

    recovery-due      present from just before a change set is first written `pending` until, with the lock
                      still held, the journal has no pending change set left (EngineState.locked)
    journal.marked    present once a version that keeps `recovery-due` has used this journal with none pending

A start opens the journal (and recovers) when `recovery-due` exists, or when a journal exists without
`journal.marked` (one an older version wrote, which may hold a pending set nobody marked): two or three stats,
no open. Every change still recovers whatever is pending first, marker or not, as it always did.

Why there, and what backs it: the marker lives with the journal in the user's 0700 state folder, never in the
workspace's `.stringsh/`, so nothing a repository ships or a sandboxed command does can reach it (the sandbox masks
the state folder). The journal itself stays the truth; the marker only says when to look at it. A planted marker
costs one journal opening, after which it is removed. A deleted one (only the user's own processes can) delays
recovery, never loses it: the pending change set and its previous bytes stay in the journal, and the next change,
`/undo` or `/revert` recovers it before doing anything else. The marker is created before the change set's first
transaction, so it is on disk before any workspace file is replaced (the change set's own fsync of the journal
commits the file system's metadata in order on ext4 and xfs; no fsync is added for it).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from typing import TYPE_CHECKING

from stringsh.errors import StringError
from stringsh.workspace import atomic
from stringsh.workspace.oserrors import DENIED, FULL, io_error, mount_of, no_space, read_only

if TYPE_CHECKING:
    from pathlib import Path

    from stringsh.workspace.journal import Journal

JOURNAL_FILE = "journal.db"
RECOVERY_MARKER = "recovery-due"
MARKED_STAMP = "journal.marked"


class JournalUnavailable(StringError):
    """The journal cannot be opened or used (damaged, not a regular file, the state folder refused it): reads can
    go on without it; a change, `/undo`, `/revert` or `/changes` cannot. `code` is INTERNAL_ERROR for a damaged
    journal, else the condition (`fault`): NO_SPACE, READ_ONLY, IO_ERROR or BUSY, which `why` says in a few words
    (the start-up line and the REPL toolbar show "read-only: <why>")."""

    def __init__(self, path: Path, reason: str, code: str = "INTERNAL_ERROR", message: str | None = None,
                 hint: str | None = None, why: str | None = None) -> None:
        super().__init__(
            code, message or f"The change journal {path} cannot be used: {reason}.",
            hint or "Move it aside (undo history and crash recovery start afresh) and run the command again.",
        )
        self.path = path
        self.reason = reason
        self.why = why or reason


#: SQLite's primary result codes that are a condition of the disk or another process, not a damaged journal.
SQLITE_BUSY, SQLITE_LOCKED, SQLITE_READONLY, SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN = 5, 6, 8, 10, 13, 14
#: What a journal write needs at the least when SQLite cannot say: a WAL frame or two and its 32 KiB index.
JOURNAL_NEEDS = 64 * 1024
#: Less free than this and an I/O error from SQLite is read as a full disk (tmpfs and overlays say EIO then).
NEARLY_FULL = 256 * 1024


def fault(path: Path, exc: BaseException) -> JournalUnavailable:
    """The state file `path` (the journal, its marker, the lock, the folder) could not be used because of `exc`
    (an OSError or a sqlite3.Error): a coded condition with its why when the disk or another process is the cause,
    INTERNAL_ERROR (move it aside) when the file itself is damaged."""
    folder = path if path.is_dir() else path.parent
    errno_ = exc.errno if isinstance(exc, OSError) else None
    sqlite = (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF
    reason = (exc.strerror if isinstance(exc, OSError) else None) or str(exc) or type(exc).__name__
    what = f"the change journal {path}" if path.name == JOURNAL_FILE else f"the state file {path}"
    try:
        st = os.statvfs(folder)
        read_only_fs, free = bool(st.f_flag & os.ST_RDONLY), st.f_bavail * st.f_frsize
    except OSError:
        read_only_fs, free = False, None
    error: StringError | None = None
    why = reason
    if errno_ in FULL or sqlite == SQLITE_FULL or (
            sqlite in (SQLITE_IOERR, SQLITE_CANTOPEN) and free is not None and free < NEARLY_FULL):
        error = no_space(what, folder, JOURNAL_NEEDS + (0 if free is None else free))
        why = f"no space left for the journal on {mount_of(folder)}"
    elif errno_ == errno.EROFS or read_only_fs or sqlite == SQLITE_READONLY:
        error = read_only(what, folder)
        why = f"the state folder {folder} is on a read-only file system"
    elif errno_ in DENIED or (sqlite == SQLITE_CANTOPEN and not os.access(folder, os.W_OK)):
        error = StringError(
            "READ_ONLY", f"stringsh cannot write its state folder {folder} ({reason}); nothing was written.",
            "Give yourself write access to it, or point STRINGSH_STATE_DIR at a folder you can write; reads still "
            "work.")
        why = f"the state folder {folder} is not writable"
    elif sqlite in (SQLITE_BUSY, SQLITE_LOCKED):
        error = StringError(
            "BUSY", f"Another process has held the change journal {path} too long; nothing was written.",
            "Wait for the other stringsh to finish (or stop it), then retry; reads still work.")
        why = "the change journal is locked by another process"
    elif errno_ == errno.EIO or sqlite == SQLITE_IOERR:
        error = io_error(what)
        why = f"input/output error on {folder}"
    if error is None:
        return JournalUnavailable(path, reason)
    return JournalUnavailable(path, reason, error.code, error.message, error.hint, why)


def rolled_back(journal: Journal, cs: int) -> None:
    """Mark a change set whose files were all put back; a journal that cannot take the mark (its disk is full too)
    leaves it pending, which recovery rolls back, and the error that stopped the change is the one reported."""
    with contextlib.suppress(JournalUnavailable):
        journal.finish(cs, "rolled_back")


def recovery_due(folder: Path) -> bool:
    """Whether a start must open the journal to recover: the marker is there, or a journal no version keeping the
    marker has used yet. Only stats, by path (nothing is created or opened)."""
    if os.path.lexists(folder / RECOVERY_MARKER):
        return True
    return os.path.lexists(folder / JOURNAL_FILE) and not os.path.lexists(folder / MARKED_STAMP)


def mark_in_flight(folder_fd: int, folder: Path) -> None:
    """Before a change set is first written: a start from now on opens the journal until `settled` removes this.
    A marker that cannot be made stops the change (JournalUnavailable) before anything is written."""
    try:
        os.close(atomic.open_state_file(folder_fd, RECOVERY_MARKER, os.O_WRONLY | os.O_CREAT))
    except OSError as exc:
        raise fault(folder / RECOVERY_MARKER, exc) from None


def settled(folder_fd: int, *, stamp: bool = True) -> None:
    """With the lock held and no change set pending: nothing is due; with `stamp`, also record that the journal
    follows the marker protocol (once per process is enough)."""
    if stamp:  # a planted link or FIFO, a read-only folder: starts keep opening the journal (safe, slower)
        with contextlib.suppress(OSError):
            os.close(atomic.open_state_file(folder_fd, MARKED_STAMP, os.O_WRONLY | os.O_CREAT))
    with contextlib.suppress(OSError):  # none (the usual case), or a read-only folder: it costs one opening
        os.unlink(RECOVERY_MARKER, dir_fd=folder_fd)


def open_journal(folder_fd: int, folder: Path, client: str) -> Journal:
    """The journal in the state folder open at `folder_fd` (`folder` its path, for messages and SQLite): its files
    must be regular files, private (0600), and a database SQLite can use; else JournalUnavailable. The one place
    the journal is opened."""
    import sqlite3  # loads with the first journal only

    from stringsh.workspace.journal import Journal

    for name in (JOURNAL_FILE, f"{JOURNAL_FILE}-wal", f"{JOURNAL_FILE}-shm"):
        try:
            st = os.stat(name, dir_fd=folder_fd, follow_symlinks=False)
        except FileNotFoundError:
            if name != JOURNAL_FILE:
                continue
        else:
            if not stat.S_ISREG(st.st_mode):
                raise JournalUnavailable(folder / name, "it is not a regular file")
        _make_private(folder_fd, name, folder)
    try:
        return Journal(folder / JOURNAL_FILE, client)
    except sqlite3.Error as exc:
        raise fault(folder / JOURNAL_FILE, exc) from None


def _make_private(folder_fd: int, name: str, folder: Path) -> None:
    """A journal file is 0600 (created so, or narrowed when an older version left it 0644): SQLite gives its WAL
    and shared-memory files the database file's mode."""
    try:
        fd = atomic.open_state_file(folder_fd, name, os.O_RDONLY | (os.O_CREAT if name == JOURNAL_FILE else 0))
    except FileNotFoundError:
        return
    except OSError as exc:
        raise fault(folder / name, exc) from None
    try:
        if stat.S_IMODE(os.fstat(fd).st_mode) != 0o600:
            os.fchmod(fd, 0o600)
    finally:
        os.close(fd)
