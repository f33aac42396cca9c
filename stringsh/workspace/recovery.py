"""Crash recovery of an append (ops/appending.py), beside the journal it reads: the append journals the file's
old length, not its bytes, so an interrupted one is judged from the file as it is now. `changes.recover` calls this
for such a change set; the append op uses the same opening and hashing, so both see a file alike."""

from __future__ import annotations

import hashlib
import os
import stat
from typing import TYPE_CHECKING

from stringsh.errors import NOT_FOUND_HINT, PERMISSION_HINT, StringError, not_a_regular_file
from stringsh.escapes import shown_name

if TYPE_CHECKING:
    from stringsh.workspace.journal import Journal
    from stringsh.workspace.journalrows import FileRow
    from stringsh.workspace.paths import Confiner, Resolved

CHUNK = 1 << 20
FLAGS = os.O_RDWR | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
UTF8_BOM = b"\xef\xbb\xbf"


def recover_append(journal: Journal, confiner: Confiner, cs: int, row: FileRow) -> str:
    """An append (or its undo) cut short by a crash: done when the file holds the new bytes, else the file is cut
    back to the old length where an append left part of its bytes; returns the state recorded."""
    change = journal.get(cs)
    state = "rolled_back"
    try:
        res = confiner.resolve(row.path, create=True)
    except (StringError, OSError):
        res = None
    if res is not None:
        try:
            if res.rel == row.path and res.st is not None and stat.S_ISREG(res.st.st_mode):
                fd = open_appendable(res)
                try:
                    size = os.fstat(fd).st_size
                    if file_hash(fd, 0)[0] == row.new_sha:
                        state = "done"
                    elif change is not None and change.kind == "apply" and size > (row.prev_size or 0):
                        os.ftruncate(fd, row.prev_size or 0)
                        os.fsync(fd)
                finally:
                    os.close(fd)
        except (StringError, OSError):
            pass
        finally:
            res.close()
    journal.finish(cs, state, change.reverts if change else None)
    return state


def open_appendable(res: Resolved) -> int:
    """The regular file `res` names, opened to append (never through a link, never another file than the one
    resolved)."""
    try:
        fd = os.open(res.name, FLAGS, dir_fd=res.parent_fd)
    except FileNotFoundError:
        raise StringError("NOT_FOUND", f"File not found: {shown_name(res.rel)}", NOT_FOUND_HINT) from None
    except OSError as exc:
        if isinstance(exc, PermissionError):
            raise StringError("NOT_PERMITTED", f"Permission denied: {shown_name(res.rel)}", PERMISSION_HINT) from None
        raise not_a_regular_file(shown_name(res.rel)) from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or (res.st is not None and (st.st_ino, st.st_dev) != (res.st.st_ino,
                                                                                          res.st.st_dev)):
        os.close(fd)
        raise not_a_regular_file(shown_name(res.rel))
    return fd


def file_hash(fd: int, head: int) -> tuple[str, int]:
    """(sha256 of the whole file, lines in its first `head` bytes), streamed."""
    digest = hashlib.sha256()
    offset = 0
    breaks = 0
    last = b""
    while True:
        chunk = os.pread(fd, CHUNK, offset)
        if not chunk:
            break
        digest.update(chunk)
        if offset < head:
            part = chunk[: head - offset]
            breaks += part.count(b"\n") + part.count(b"\r") - part.count(b"\r\n")
            if last == b"\r" and part.startswith(b"\n"):  # a `\r\n` split between chunks is one break
                breaks -= 1
            last = part[-1:]
        offset += len(chunk)
    text_bytes = head - (3 if head >= 3 and os.pread(fd, 3, 0) == UTF8_BOM else 0)
    return digest.hexdigest(), breaks + (1 if text_bytes and last not in (b"\n", b"\r") else 0)
