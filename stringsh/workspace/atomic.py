"""Atomic file replacement relative to directory descriptors: temp file in the same folder, fsync, rename.

Directory fsyncs are left to the caller so a multi-file change set syncs each folder once.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from stringsh.errors import (
    NOT_FOUND_HINT,
    PERMISSION_HINT,
    StringError,
    is_a_folder,
    not_a_regular_file,
    too_large_to_read,
)
from stringsh.escapes import shown_name
from stringsh.workspace.paths import DIR_FLAGS, TEMP_PREFIX

if TYPE_CHECKING:
    import concurrent.futures
    from collections.abc import Sequence
    from pathlib import Path

#: O_NONBLOCK: opening a FIFO must not wait for a writer (a regular file ignores the flag); fstat then refuses it.
READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
#: Engine state files (journal, audit log, lock, spool): never through a link, never waiting on a FIFO.
STATE_FLAGS = os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
PRIVATE_DIR_MODE = 0o700


def _umask() -> int:
    mask = os.umask(0o22)
    os.umask(mask)
    return mask


UMASK = _umask()
DEFAULT_MODE = 0o666 & ~UMASK


def sha256(data: bytes) -> str:
    """The content hash the journal, the stale-write guard and the index cache all key on (OpenSSL's, fast on
    big files; imported on the first hash, not by every start: workspace/digest.py)."""
    import hashlib

    return hashlib.sha256(data).hexdigest()


def temp_name(change_id: int, index: int) -> str:
    return f"{TEMP_PREFIX}{change_id}-{index}.tmp"


def open_regular(dir_fd: int, name: str, rel: str) -> tuple[int, os.stat_result]:
    """Open a regular file for reading without following a symlink swapped in after resolution; the caller closes
    the descriptor."""
    try:
        fd = os.open(name, READ_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        raise StringError("NOT_FOUND", f"File not found: {shown_name(rel)}", NOT_FOUND_HINT) from None
    except OSError as exc:
        if exc.errno == 40:  # ELOOP: the leaf became a symlink after it was checked
            raise StringError("INVALID_PATH", f"Path changed to a symlink while in use: {shown_name(rel)}") from None
        if isinstance(exc, IsADirectoryError):
            raise is_a_folder(rel) from None
        if exc.errno in (errno.ENXIO, errno.ENODEV, errno.EOPNOTSUPP):  # a socket or a device without a driver
            raise not_a_regular_file(shown_name(rel)) from None
        if isinstance(exc, PermissionError):
            raise StringError("NOT_PERMITTED", f"Permission denied: {shown_name(rel)}", PERMISSION_HINT) from None
        raise
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise is_a_folder(rel)
        if not stat.S_ISREG(st.st_mode):
            raise not_a_regular_file(shown_name(rel))
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def read_at(dir_fd: int, name: str, rel: str, limit: int | None = None) -> tuple[bytes, os.stat_result]:
    """Read a regular file without following a symlink swapped in after resolution."""
    fd, st = open_regular(dir_fd, name, rel)
    try:
        if limit is not None and st.st_size > limit:
            raise too_large_to_read(rel, st.st_size, limit)
        chunks = [os.read(fd, st.st_size + 1)]  # one read (no copy to join) unless the file grows meanwhile
        while chunks[-1]:
            chunks.append(os.read(fd, 1 << 20))
        return chunks[0] if len(chunks) <= 2 else b"".join(chunks), st
    finally:
        os.close(fd)


def stage_open(dir_fd: int, tmp: str, data: bytes, mode: int) -> int:
    """Write `data` to a fresh temp file and return its open descriptor; the caller fsyncs it before renaming."""
    try:
        fd = os.open(tmp, TEMP_FLAGS, mode & 0o7777, dir_fd=dir_fd)
    except FileExistsError:  # left by a crash: it was never renamed, so it holds nothing anyone needs
        os.unlink(tmp, dir_fd=dir_fd)
        fd = os.open(tmp, TEMP_FLAGS, mode & 0o7777, dir_fd=dir_fd)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if mode & 0o7777 & UMASK:  # open() applied the umask; put back the bits it removed
            os.fchmod(fd, mode & 0o7777)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dir_fd)
        raise
    return fd


def stage(dir_fd: int, tmp: str, data: bytes, mode: int) -> None:
    """Write `data` to a fresh temp file and make it durable before it can replace anything."""
    fd = stage_open(dir_fd, tmp, data, mode)
    try:
        os.fsync(fd)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dir_fd)
        raise
    finally:
        os.close(fd)


class FsyncPool:
    """Worker threads that fsync descriptors side by side; one per workspace state, started on first use.

    Independent fsyncs overlap (the filesystem can commit them together) instead of queueing one after another."""

    def __init__(self, workers: int = 8) -> None:
        self.workers = workers
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def _pool(self) -> concurrent.futures.ThreadPoolExecutor:
        with self._lock:
            if self._executor is None:
                from concurrent.futures import ThreadPoolExecutor  # first multi-file write only: ~6 ms at start-up

                self._executor = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="stringsh-fsync")
            return self._executor

    def hash_ahead(self, data: bytes) -> concurrent.futures.Future[str]:
        """`sha256(data)` on a worker thread (hashlib lets go of the GIL), for bytes hashed later on this one."""
        return self._pool().submit(sha256, data)

    def fsync_all(self, fds: list[int], alongside: Callable[[], None] | None = None) -> None:
        """fsync every descriptor on worker threads while `alongside` runs here."""
        executor = self._pool()
        futures = [executor.submit(os.fsync, fd) for fd in fds]
        try:
            if alongside is not None:
                alongside()
        finally:
            for future in futures:
                future.result()

    def close(self) -> None:
        with self._lock:
            if self._executor is not None:
                self._executor.shutdown(wait=True)
                self._executor = None


def commit(dir_fd: int, tmp: str, name: str) -> None:
    os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)


def remove(dir_fd: int, name: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(name, dir_fd=dir_fd)


def fsync_dirs(fds: list[int], pool: FsyncPool) -> None:
    """fsync each distinct folder once."""
    seen: dict[tuple[int, int], int] = {}
    for fd in fds:
        st = os.fstat(fd)
        seen.setdefault((st.st_dev, st.st_ino), fd)
    unique = list(seen.values())
    if len(unique) == 1:
        os.fsync(unique[0])
    else:
        pool.fsync_all(unique)


# -- engine state: folders and files a workspace could have planted -------------------------------------------


def open_folders(base_fd: int, parts: Sequence[str], *, create: bool) -> int:
    """A descriptor of `base/parts...`, each folder opened without following a symlink (ELOOP for a planted link,
    ENOTDIR for a file); missing ones are created private (0700) when `create`."""
    fd = os.dup(base_fd)
    try:
        for part in parts:
            if create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, PRIVATE_DIR_MODE, dir_fd=fd)
            try:
                inner = os.open(part, DIR_FLAGS, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR) and _is_link(fd, part):
                    raise OSError(errno.ELOOP, f"{part} is a symbolic link") from None
                raise
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def _is_link(dir_fd: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def open_real_folder(path: Path, *, create: bool) -> int:
    """A descriptor of the absolute `path`, no component of which may be a symlink (the engine hands out real
    paths, so a link on the way was planted)."""
    top = os.open("/", DIR_FLAGS)
    try:
        return open_folders(top, [part for part in os.path.abspath(path).split("/") if part], create=create)
    finally:
        os.close(top)


def make_private(fd: int) -> None:
    """Take group and other bits off a folder this user owns (a cloned `.stringsh/` comes with the umask's)."""
    st = os.fstat(fd)
    if st.st_uid == os.geteuid() and stat.S_IMODE(st.st_mode) & 0o077:
        os.fchmod(fd, stat.S_IMODE(st.st_mode) & PRIVATE_DIR_MODE)


def open_state_file(dir_fd: int, name: str, flags: int) -> int:
    """Open a state file in an open folder: never through a symlink (ELOOP), created 0600, and only a regular
    file (a FIFO or device is refused at once with EINVAL instead of blocking or being written to)."""
    fd = os.open(name, flags | STATE_FLAGS, 0o600, dir_fd=dir_fd)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", name)
    except BaseException:
        os.close(fd)
        raise
    return fd
