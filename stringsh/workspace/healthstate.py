"""What other processes ran into, for a supervisor's page (`stringsh web`): the degraded mode a process fell into
(its `read_only` lives in its memory, so it leaves a small note in the state folder) and who holds the workspace
lock now (the kernel's lock table, /proc/locks: nothing is taken to look, so no writer ever waits for the page).

The note is untrusted input: anything that can write the state folder could have put any bytes there. It is read
without following a link and only as a regular file, at most `MAX_NOTE` bytes, and believed only as a JSON object
whose every field has its type and a sane value; its text is cut and loses its control characters. Anything else
reads as no note. A note is written only when a process degrades (rare); it is never removed on the writers' path:
the reader holds it against the journal instead (a change set written after it means the condition cleared).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import math
import os
import time
from pathlib import Path
from typing import NamedTuple

from stringsh.workspace.atomic import open_state_file

DEGRADED_FILE = "degraded"
#: Bytes of a note at most (a real one is about 300); a bigger file is not a note.
MAX_NOTE = 4096
#: Characters of the note's reason and of a lock holder's command line kept.
TEXT_MAX = 300
#: The codes a process degrades with (statelock.DEGRADED: kept in step by a test).
CODES = frozenset({"NO_SPACE", "READ_ONLY", "IO_ERROR", "BUSY"})


class Degraded(NamedTuple):
    """A process's note: why its changes were refused (`code`, `why`), which process (`pid`) and when (`time`)."""

    code: str
    why: str
    pid: int
    time: float


class LockHolder(NamedTuple):
    """The workspace lock: `held`, and when it is, by which process (`pid`, None when the kernel does not say) and
    its command line (`program`, "" when unknown; the caller masks it as any command line)."""

    held: bool
    pid: int | None = None
    program: str = ""


def note_degraded(dir_fd: int, code: str, why: str) -> None:
    """Leave the note (best effort: a full or read-only state folder may refuse it; the page shows the disk)."""
    data = json.dumps({"code": code, "why": why[:TEXT_MAX], "pid": os.getpid(), "time": time.time()}).encode()
    tmp = f"{DEGRADED_FILE}.{os.getpid()}.tmp"  # one per process: two degrading at once never mix their bytes
    with contextlib.suppress(OSError):
        fd = open_state_file(dir_fd, tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        os.replace(tmp, DEGRADED_FILE, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)


def read_degraded(folder: Path) -> Degraded | None:
    """The note in the state folder `folder`, when there is a well-formed one."""
    try:
        folder_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        fd = open_state_file(folder_fd, DEGRADED_FILE, os.O_RDONLY | os.O_NONBLOCK)
        try:
            data = os.read(fd, MAX_NOTE + 1)
        finally:
            os.close(fd)
    except OSError:  # none, a link, a FIFO, unreadable: no note
        return None
    finally:
        os.close(folder_fd)
    return parse_note(data)


def parse_note(data: bytes) -> Degraded | None:
    """A note's bytes believed only when every field is what `note_degraded` writes."""
    if len(data) > MAX_NOTE:
        return None
    try:
        fields = json.loads(data)
    except (ValueError, RecursionError):
        return None
    if not isinstance(fields, dict):
        return None
    code, why, pid, when = (fields.get(name) for name in ("code", "why", "pid", "time"))
    if not (isinstance(code, str) and code in CODES and isinstance(why, str)):
        return None
    if type(pid) is not int or not 0 < pid < 1 << 22:
        return None
    if type(when) not in (int, float) or not math.isfinite(when) or not 0 < when < time.time() + 60:
        return None
    return Degraded(str(code), printable(why), pid, float(when))


def printable(text: str) -> str:
    """`text` cut at `TEXT_MAX` characters, each control or format character shown as `?`."""
    cut = text[:TEXT_MAX]
    return "".join(char if char.isprintable() else "?" for char in cut)


def lock_holder(lock: Path) -> LockHolder:
    """Who holds the flock on the file `lock`, from /proc/locks (Linux); elsewhere a non-blocking try of a shared
    lock, let go at once, says only held or free."""
    try:
        st = os.stat(lock, follow_symlinks=False)
    except OSError:
        return LockHolder(False)  # never made: nobody has locked it yet
    try:
        with open("/proc/locks", encoding="ascii", errors="replace") as table:
            lines = table.read().splitlines()
    except OSError:
        return _tried(lock)
    # "1: FLOCK  ADVISORY  WRITE 21851 fe:00:7563096 0 EOF"; a waiter's line has "->" after its number
    held = [parts for parts in (line.split() for line in lines)
            if len(parts) >= 6 and parts[1] == "FLOCK" and parts[3] == "WRITE"]
    device = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    found = [parts for parts in held if parts[5] == device]
    # a stacked file system (overlayfs) may name another device than stat says: then by the inode alone
    found = found or [parts for parts in held if parts[5].rpartition(":")[2] == str(st.st_ino)]
    if not found:
        return LockHolder(False)
    pid = int(found[0][4]) if found[0][4].isdigit() and int(found[0][4]) > 0 else None
    return LockHolder(True, pid, _command_line(pid) if pid is not None else "")


def _tried(lock: Path) -> LockHolder:
    try:
        fd = os.open(lock, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return LockHolder(False)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return LockHolder(True)
    finally:
        os.close(fd)  # closing lets go of the shared lock, if it was taken
    return LockHolder(False)


def _command_line(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            raw = handle.read(4 * TEXT_MAX)
    except OSError:
        return ""
    return printable(raw.rstrip(b"\0").replace(b"\0", b" ").decode("utf-8", errors="replace"))
