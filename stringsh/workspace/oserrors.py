"""The engine's one translation of a filesystem error into a coded error with the path, at its boundary.

An operation resolves and opens paths step by step from folder descriptors, so an `OSError` that escapes it is
the file system saying no (a folder the user may not read: `NOT_PERMITTED`) or something else changing the tree
while it was walked (a folder swapped for a symlink, a file removed: `CONFLICT`). Neither is a bug in stringsh, so
neither may surface as `INTERNAL_ERROR` with a traceback's words. `EngineState.audited`, which every operation
runs inside, and the confiner's `resolve`, which every path goes through (a look-up inside another operation is
not audited on its own), convert what escapes with `coded`; an errno not listed here (EBADF) stays a real
failure.

A full disk (`NO_SPACE`, with how much more is needed and on which mount), a read-only file system (`READ_ONLY`)
and a failing disk (`IO_ERROR`) are conditions the user can fix, so they are coded too, with the path and a next
step; the change set that met one was rolled back (changes.py), so "nothing was written" is true when they say it.
The same three describe the user's state folder when the journal cannot be written (`state_fault`).
"""

from __future__ import annotations

import errno
import os
from collections.abc import Sequence

from stringsh.errors import StringError

#: The tree changed under the operation: it went, was swapped for a link or a file, or was filled meanwhile.
RACES = frozenset({errno.ENOENT, errno.ENOTDIR, errno.ELOOP, errno.ESTALE, errno.EEXIST, errno.ENOTEMPTY,
                   errno.EISDIR})
DENIED = frozenset({errno.EACCES, errno.EPERM})
FULL = frozenset({errno.ENOSPC, errno.EDQUOT})
KB = 1024


def mount_of(path: str | os.PathLike[str]) -> str:
    """The mount point holding `path` (its nearest existing folder), for a message a person can act on."""
    here = os.path.abspath(path)
    while not os.path.isdir(here) and os.path.dirname(here) != here:
        here = os.path.dirname(here)
    while not os.path.ismount(here):
        here = os.path.dirname(here)
    return here


def free_bytes(path: str | os.PathLike[str]) -> int | None:
    """Bytes an unprivileged writer may still use on the file system holding `path`; None: it cannot be asked."""
    try:
        st = os.statvfs(mount_of(path))
    except OSError:
        return None
    return st.f_bavail * st.f_frsize


def no_space(what: str, where: str | os.PathLike[str], needed: int | None) -> StringError:
    """NO_SPACE: `what` (a path as the user knows it) needed `needed` bytes on the file system holding `where`."""
    mount = mount_of(where)
    free = free_bytes(where)
    if needed is not None and free is not None:
        more = f"needs about {max(1, -(-(needed - free) // KB))} KB more on {mount}"
    else:
        more = f"needs more space than is left on {mount}"
    return StringError(
        "NO_SPACE", f"No space left: {what} {more}; nothing was written.",
        f"Free some space on {mount} (df -h {mount} shows what is left), then retry; reads still work.",
    )


def read_only(what: str, where: str | os.PathLike[str]) -> StringError:
    """READ_ONLY: `what` lies on a file system mounted read-only (the one holding `where`)."""
    return StringError(
        "READ_ONLY", f"Read-only file system: {what} is on {mount_of(where)}; nothing was written.",
        "Remount it read-write (or work on a copy elsewhere), then retry; reads still work.",
    )


def io_error(what: str) -> StringError:
    """IO_ERROR: the disk said EIO while `what` was written or read."""
    return StringError(
        "IO_ERROR", f"Input/output error on {what}; nothing was written.",
        "The disk or its file system may be failing: check the system log (dmesg) and the file system, then retry.",
    )


def coded(exc: OSError, paths: Sequence[str], root: str | os.PathLike[str] = "/") -> StringError | None:
    """The coded error for `exc` met while working on `paths` (the paths the request named, relative to `root`);
    None: not ours to translate. The message names the path asked for and, when it differs, the component the
    system refused."""
    asked = paths[0] if paths else ""
    name = os.fsdecode(exc.filename) if isinstance(exc.filename, (str, bytes)) else ""
    where = plain = asked or name or "(the workspace)"  # a condition of the disk: the temp file's name says nothing
    if name and asked and name not in (asked, asked.rstrip("/").rsplit("/", 1)[-1]):
        where = f"{asked} (at {name})"
    if exc.errno in DENIED:
        return StringError(
            "NOT_PERMITTED", f"Permission denied: {where}",
            "The operating system refuses stringsh (your own rights) there; check its owner and mode with "
            "!ls -ld, or leave it out.",
        )
    folder = os.path.join(root, os.path.dirname(asked) if asked and ":" not in asked else "")
    if exc.errno == errno.EROFS:
        return read_only(plain, folder)
    if exc.errno in FULL:
        return no_space(plain, folder, getattr(exc, "needed", None))
    if exc.errno == errno.EIO:
        return io_error(plain)
    if exc.errno in RACES:
        return StringError(
            "CONFLICT", f"{where} changed while stringsh was using it ({exc.strerror or 'changed'})",
            "Something else is changing that folder; look again (/ls) and retry.",
        )
    if exc.errno == errno.EFBIG:
        return StringError("TOO_LARGE", f"File too large for its file system: {where}; nothing was written.",
                           "Keep it smaller, or put it on another file system.")
    return None
