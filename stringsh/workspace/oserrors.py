"""The engine's one translation of a filesystem error into a coded error with the path, at its boundary.

An operation resolves and opens paths step by step from folder descriptors, so an `OSError` that escapes it is
the file system saying no (a folder the user may not read: `NOT_PERMITTED`) or something else changing the tree
while it was walked (a folder swapped for a symlink, a file removed: `CONFLICT`). Neither is a bug in stringsh, so
neither may surface as `INTERNAL_ERROR` with a traceback's words. `EngineState.audited`, which every operation
runs inside, and the confiner's `resolve`, which every path goes through (a look-up inside another operation is
not audited on its own), convert what escapes with `coded`; an errno not listed here (EIO, EBADF) stays a real
failure.
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
FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


def coded(exc: OSError, paths: Sequence[str]) -> StringError | None:
    """The coded error for `exc` met while working on `paths` (the paths the request named); None: not ours to
    translate. The message names the path asked for and, when it differs, the component the system refused."""
    asked = paths[0] if paths else ""
    name = os.fsdecode(exc.filename) if isinstance(exc.filename, (str, bytes)) else ""
    where = asked or name or "(the workspace)"
    if name and asked and name not in (asked, asked.rstrip("/").rsplit("/", 1)[-1]):
        where = f"{asked} (at {name})"
    if exc.errno in DENIED:
        return StringError(
            "NOT_PERMITTED", f"Permission denied: {where}",
            "The operating system refuses stringsh (your own rights) there; check its owner and mode with "
            "!ls -ld, or leave it out.",
        )
    if exc.errno == errno.EROFS:
        return StringError("NOT_PERMITTED", f"Read-only file system: {where}", "Nothing was changed there.")
    if exc.errno in RACES:
        return StringError(
            "CONFLICT", f"{where} changed while stringsh was using it ({exc.strerror or 'changed'})",
            "Something else is changing that folder; look again (/ls) and retry.",
        )
    if exc.errno in FULL:
        return StringError("TOO_LARGE", f"No space left for {where} ({exc.strerror or 'full'})",
                           "Free some space on that file system and retry.")
    return None
