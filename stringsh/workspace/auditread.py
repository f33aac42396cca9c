"""The audit log read by position, for a reader that follows it live (`stringsh web`): new records from where the
last read ended, and older ones a page at a time, without reading a whole log per event.

A record's place is a `Spot`: the log file's inode and the record's byte offset in it. The inode survives the
rotation (the current log is renamed to the older file, audit.py), so a reader that was in the current log finds the
rest of it under the older name and goes on at the new log's start. Lines are read as stored; only whole lines
(ending in a newline) count, so a record being appended is read on the next call.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from stringsh.workspace.atomic import open_state_file
from stringsh.workspace.audit import AuditFiles

#: Bytes read back at a time when paging towards older records.
CHUNK = 64 * 1024
#: Bytes of new records one call hands back at most (the next call goes on from there).
MAX_NEW = 1024 * 1024


class Spot(NamedTuple):
    """Where a record starts (or a read ends): the log file's inode and a byte offset in it."""

    ino: int
    offset: int


class Entry(NamedTuple):
    spot: Spot
    line: str


def _open(folder_fd: int, name: str) -> int | None:
    try:
        return open_state_file(folder_fd, name, os.O_RDONLY)
    except FileNotFoundError:
        return None


def _folder(folder: Path) -> int | None:
    try:
        return os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except FileNotFoundError:
        return None


def end(folder: Path, files: AuditFiles) -> Spot:
    """The end of the current log: a reader starting here sees only records written from now on."""
    folder_fd = _folder(folder)
    if folder_fd is None:
        return Spot(0, 0)
    try:
        fd = _open(folder_fd, files.log)
        if fd is None:
            return Spot(0, 0)
        try:
            st = os.fstat(fd)
            return Spot(st.st_ino, _line_end(fd, st.st_size))
        finally:
            os.close(fd)
    finally:
        os.close(folder_fd)


def _line_end(fd: int, size: int) -> int:
    """The end of the last whole line at or before `size` (a record being appended is not yet one)."""
    tail = os.pread(fd, min(size, CHUNK), size - min(size, CHUNK))
    return size - (len(tail) - tail.rfind(b"\n") - 1)


def _whole_lines(fd: int, ino: int, start: int, limit: int) -> tuple[list[Entry], int]:
    """The whole lines from `start` (at most about `limit` bytes), and where reading stopped."""
    data = os.pread(fd, limit, start)
    cut = data.rfind(b"\n") + 1
    entries: list[Entry] = []
    at = 0
    for raw in data[:cut].split(b"\n")[:-1]:
        if raw.strip():
            entries.append(Entry(Spot(ino, start + at), raw.decode("utf-8", errors="replace")))
        at += len(raw) + 1
    return entries, start + cut


def since(folder: Path, files: AuditFiles, spot: Spot) -> tuple[list[Entry], Spot]:
    """The records written after `spot` (a previous call's end, or `end()`), and the new end. A rotation in
    between: the rest of the older file first, then the new log from its start."""
    folder_fd = _folder(folder)
    if folder_fd is None:
        return [], spot
    try:
        fd = _open(folder_fd, files.log)
        if fd is None:
            return [], spot
        try:
            st = os.fstat(fd)
            if st.st_ino == spot.ino:
                if st.st_size <= spot.offset:
                    return [], spot
                entries, stop = _whole_lines(fd, st.st_ino, spot.offset, MAX_NEW)
                return entries, Spot(st.st_ino, stop)
            entries = []
            old = _open(folder_fd, files.old)
            if old is not None:
                try:
                    if os.fstat(old).st_ino == spot.ino:  # rotated since: the rest of the log we were in
                        entries, _ = _whole_lines(old, spot.ino, spot.offset, MAX_NEW)
                finally:
                    os.close(old)
            more, stop = _whole_lines(fd, st.st_ino, 0, MAX_NEW)
            return entries + more, Spot(st.st_ino, stop)
        finally:
            os.close(fd)
    finally:
        os.close(folder_fd)


def kept(folder: Path, files: AuditFiles, spot: Spot) -> bool:
    """Whether `spot` (a place `before` handed out) is still in the log: the file it was in is kept (under either
    name) and a record starts there. False once that file was rotated out (the log keeps two files), even when
    its inode number was given to a newer file since."""
    folder_fd = _folder(folder)
    if folder_fd is None:
        return False
    try:
        chain = [fd for fd in (_open(folder_fd, files.log), _open(folder_fd, files.old)) if fd is not None]
        try:
            return _holds(chain, [os.fstat(fd).st_ino for fd in chain], spot)
        finally:
            for fd in chain:
                os.close(fd)
    finally:
        os.close(folder_fd)


def _holds(chain: list[int], inodes: list[int], spot: Spot) -> bool:
    """The file of `spot`'s inode has a line starting at its offset (a reused inode number rarely does)."""
    if spot.ino not in inodes:
        return False
    fd = chain[inodes.index(spot.ino)]
    if not 0 <= spot.offset <= os.fstat(fd).st_size:
        return False
    return spot.offset == 0 or os.pread(fd, 1, spot.offset - 1) == b"\n"


def before(folder: Path, files: AuditFiles, spot: Spot | None, count: int, keep: Callable[[str], bool],
           budget: int = 8 * 1024 * 1024) -> tuple[list[Entry], Spot | None]:
    """Up to `count` records older than `spot` (None: the newest), newest first, those `keep` accepts; and where the
    next page starts (None: nothing older). Reads back at most `budget` bytes, so a filter that matches little
    returns a short page and a place to go on from, never a read of the whole log."""
    folder_fd = _folder(folder)
    if folder_fd is None:
        return [], None
    out: list[Entry] = []
    try:
        chain = [fd for fd in (_open(folder_fd, files.log), _open(folder_fd, files.old)) if fd is not None]
        try:
            inodes = [os.fstat(fd).st_ino for fd in chain]
            if spot is None:
                k, offset = 0, _line_end(chain[0], os.fstat(chain[0]).st_size) if chain else 0
            elif _holds(chain, inodes, spot):
                k, offset = inodes.index(spot.ino), spot.offset
            else:
                return [], None  # the log it was in is gone (rotated out twice): nothing older is kept
            read = 0
            while k < len(chain):
                fd, ino = chain[k], inodes[k]
                while offset > 0:
                    if len(out) >= count or read >= budget:
                        return out, Spot(ino, offset)
                    start = max(0, offset - CHUNK)
                    data = os.pread(fd, offset - start, start)
                    read += len(data)
                    if start > 0:
                        first = data.find(b"\n")
                        if first < 0:  # a line longer than a chunk: widen until its start is in
                            start, data = 0, os.pread(fd, offset, 0)
                        else:
                            start, data = start + first + 1, data[first + 1 :]
                    lines = data.split(b"\n")
                    positions = []
                    at = start
                    for raw in lines:
                        positions.append(at)
                        at += len(raw) + 1
                    for raw, pos in zip(reversed(lines), reversed(positions), strict=True):
                        if not raw.strip():
                            continue
                        line = raw.decode("utf-8", errors="replace")
                        if keep(line):
                            out.append(Entry(Spot(ino, pos), line))
                            if len(out) >= count:
                                return out, Spot(ino, pos)
                    offset = start
                k += 1
                offset = os.fstat(chain[k]).st_size if k < len(chain) else 0
            return out, None
        finally:
            for fd in chain:
                os.close(fd)
    finally:
        os.close(folder_fd)
