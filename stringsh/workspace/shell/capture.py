"""Bounded capture of a command's clean output: head and tail in memory, the whole text in a spool file.

Memory stays near `cap` bytes however much a command prints; the spool file is opened only once the output
outgrows the cap, so ordinary commands never touch the disk. The spool folder lives in the workspace (users
`/open` the file a reply names), so it is reached and pruned without following symlinks (see state.py).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shlex
import stat
import time
from collections import deque
from pathlib import Path
from typing import IO

from stringsh.workspace.atomic import make_private, open_real_folder

#: Spool files kept per workspace, and their total size; older ones are removed when a new one is made.
SPOOL_KEEP = 50
SPOOL_BUDGET = 2 << 30
#: One spool file stops growing here (the notice then says how much of the output it holds).
SPOOL_MAX = 1 << 30
#: A fresh spool file: never an existing name, never through a link.
SPOOL_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class OutputCapture:
    """Collects text; `text()` is the whole output or head + cut notice + tail."""

    def __init__(self, cap: int, spool_dir: Path, spool_max: int = SPOOL_MAX) -> None:
        self.cap = max(cap, 64)
        self.spool_dir = spool_dir
        self.spool_max = spool_max
        self.spooled = 0
        self.total_bytes = 0
        self.total_lines = 0
        self.spool_path: Path | None = None
        self.spool_error: str | None = None
        self._spool: IO[bytes] | None = None
        self._pending: list[bytes] | None = []
        self._head: list[bytes] = []
        self._head_bytes = 0
        self._tail: deque[bytes] = deque()
        self._tail_bytes = 0

    def write(self, data: bytes) -> None:
        """Add clean UTF-8 bytes."""
        if not data:
            return
        self.total_bytes += len(data)
        self.total_lines += data.count(b"\n")
        if self._pending is not None:
            self._pending.append(data)
            if self.total_bytes > self.cap:
                self._open_spool(self._pending)
                self._pending = None
        elif self._spool is not None:
            self._to_spool([data])
        half = self.cap // 2
        if self._head_bytes < half:
            take = data[: half - self._head_bytes]
            self._head.append(take)
            self._head_bytes += len(take)
        self._tail.append(data)
        self._tail_bytes += len(data)
        while self._tail and self._tail_bytes - len(self._tail[0]) >= half:
            self._tail_bytes -= len(self._tail.popleft())

    def _open_spool(self, seen: list[bytes]) -> None:
        """Start the spool with everything seen so far (still whole in memory: it fit under the cap)."""
        name = time.strftime("bash-%Y%m%dT%H%M%S-", time.gmtime()) + secrets.token_hex(3) + ".txt"
        self.spool_path = self.spool_dir / name
        try:
            folder = open_spool_folder(self.spool_dir)
        except OSError as exc:
            self.spool_error = exc.strerror or type(exc).__name__
            return
        try:
            fd = os.open(name, SPOOL_FLAGS, 0o600, dir_fd=folder)
            self._spool = os.fdopen(fd, "wb")
            _prune(folder, keep=SPOOL_KEEP, budget=SPOOL_BUDGET, spare=name)
        except OSError as exc:
            self.spool_error = exc.strerror or type(exc).__name__
            return
        finally:
            os.close(folder)
        self._to_spool(seen)

    def _to_spool(self, chunks: list[bytes]) -> None:
        assert self._spool is not None
        try:
            for data in chunks:
                room = self.spool_max - self.spooled
                self._spool.write(data[:room])
                self.spooled += min(room, len(data))
                if room <= len(data):
                    self.close()
                    return
        except OSError as exc:
            self.spool_error = exc.strerror or type(exc).__name__
            self.close()

    def close(self) -> None:
        if self._spool is not None:
            self._spool.close()
            self._spool = None

    def text(self) -> str:
        """The output, trailing whitespace trimmed; when over the cap, head and tail around a notice."""
        self.close()
        if self._pending is not None:
            return b"".join(self._pending).decode("utf-8", "replace").rstrip()
        head = _to_line_end(b"".join(self._head))
        tail = _from_line_start(b"".join(self._tail)[-(self.cap // 2) :], self.total_bytes)
        cut_bytes = self.total_bytes - len(head) - len(tail)
        cut_lines = self.total_lines - head.count(b"\n") - tail.count(b"\n")
        if self.spool_error is not None:
            kept = f"not kept: {self.spool_error}"
        elif self.spooled < self.total_bytes:
            kept = f"first {self.spooled} bytes in {shlex.quote(str(self.spool_path))}"
        else:
            kept = f"in {shlex.quote(str(self.spool_path))}"
        notice = (
            f"[... {cut_bytes} bytes, {cut_lines} lines cut; "
            f"whole output ({self.total_bytes} bytes, {self.total_lines} lines) {kept} ...]"
        )
        head_text = head.decode("utf-8", "replace").rstrip("\n")
        tail_text = tail.decode("utf-8", "replace").rstrip()
        return f"{head_text}\n{notice}\n{tail_text}"


def _to_line_end(head: bytes) -> bytes:
    """Cut the head after its last newline when that keeps at least half of it."""
    end = head.rfind(b"\n")
    return head[: end + 1] if end >= len(head) // 2 else _whole_chars(head)


def _from_line_start(tail: bytes, total: int) -> bytes:
    """Start the tail at a line start when that keeps at least half of it."""
    del total
    start = tail.find(b"\n")
    if 0 <= start < len(tail) // 2:
        return tail[start + 1 :]
    while tail and 0x80 <= tail[0] < 0xC0:
        tail = tail[1:]
    return tail


def _whole_chars(data: bytes) -> bytes:
    """Drop a UTF-8 character cut at the end."""
    return data.decode("utf-8", "ignore").encode("utf-8") if data[-1:] >= b"\x80" else data


def open_spool_folder(spool_dir: Path) -> int:
    """The spool folder, created private (0700) where missing; no component of its (real) path may be a
    symlink, so a workspace that ships `.stringsh` or `.stringsh/spool` as a link gets nothing written through it."""
    fd = open_real_folder(spool_dir, create=True)
    try:
        make_private(fd)
    except BaseException:
        os.close(fd)
        raise
    return fd


def prune_spool(spool_dir: Path, keep: int, budget: int = SPOOL_BUDGET, spare: Path | None = None) -> None:
    """Keep the newest `keep` spool files, dropping older ones while the total passes `budget` bytes."""
    try:
        folder = open_real_folder(spool_dir, create=False)
    except OSError:
        return
    try:
        _prune(folder, keep, budget, None if spare is None else spare.name)
    finally:
        os.close(folder)


def _prune(folder: int, keep: int, budget: int, spare: str | None) -> None:
    """Within the open folder only: names are unlinked relative to it, never through a path that could change."""
    found: list[tuple[os.stat_result, str]] = []
    try:
        for name in os.listdir(folder):
            if name.startswith("bash-") and name.endswith(".txt") and name != spare:
                with contextlib.suppress(OSError):
                    st = os.stat(name, dir_fd=folder, follow_symlinks=False)
                    if stat.S_ISREG(st.st_mode):
                        found.append((st, name))
    except OSError:
        return
    found.sort(key=lambda item: item[0].st_mtime, reverse=True)
    total = 0
    for index, (st, name) in enumerate(found):
        total += st.st_size
        if index >= keep - (spare is not None) or total > budget:
            with contextlib.suppress(OSError):
                os.unlink(name, dir_fd=folder)
