"""Append-only, hash-chained audit log (JSON lines): who did what to which paths, never file contents.

Each record carries the hash of the previous one, so editing or dropping a line breaks `verify`. The log is
opened in the engine's state folder without following a symlink and only as a regular file (see state.py).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import threading
import time
from pathlib import Path
from typing import NamedTuple

from stringsh.workspace.atomic import open_state_file

GENESIS = "0" * 64


def _digest(prev: str, record: dict[str, object]) -> str:
    body = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256((prev + body).encode("utf-8")).hexdigest()


class AuditCheck(NamedTuple):
    ok: bool
    records: int
    bad_line: int | None = None
    reason: str = ""


class AuditLog:
    """Appends to `name` in the open folder `dir_fd`; OSError (ELOOP, EINVAL) when a link or FIFO is there."""

    def __init__(self, dir_fd: int, name: str) -> None:
        self.fd = open_state_file(dir_fd, name, os.O_RDWR | os.O_APPEND | os.O_CREAT)
        self._lock = threading.Lock()  # flock excludes other processes; threads share this descriptor
        self._cached: tuple[int, str] | None = None  # (file size after our last append, its hash)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def _last_hash(self) -> str:
        """The newest record's hash: remembered from our own last append unless another process wrote since."""
        size = os.fstat(self.fd).st_size
        if size == 0:
            return GENESIS
        if self._cached is not None and self._cached[0] == size:
            return self._cached[1]
        span = 4096
        while True:
            start = max(0, size - span)
            tail = os.pread(self.fd, size - start, start).rstrip(b"\n")
            if b"\n" in tail or start == 0:
                break
            span *= 4
        line = tail.rsplit(b"\n", 1)[-1]
        try:
            return str(json.loads(line)["hash"])
        except (ValueError, KeyError, TypeError):
            return hashlib.sha256(line).hexdigest()  # a damaged tail still chains; verify reports it

    def append(self, *, op: str, topic: str, frontend: str, paths: list[str], outcome: str, ms: float,
               change_id: int | None = None) -> None:
        with self._lock:
            self._append(op, topic, frontend, paths, outcome, ms, change_id)

    def _append(self, op: str, topic: str, frontend: str, paths: list[str], outcome: str, ms: float,
                change_id: int | None) -> None:
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        try:
            prev = self._last_hash()
            record: dict[str, object] = {
                "time": round(time.time(), 6), "topic": topic, "frontend": frontend, "op": op,
                "paths": paths, "outcome": outcome, "ms": round(ms, 3), "prev": prev,
            }
            if change_id is not None:
                record["change"] = change_id
            record["hash"] = _digest(prev, record)
            os.write(self.fd, (json.dumps(record, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8"))
            self._cached = (os.fstat(self.fd).st_size, str(record["hash"]))
        finally:
            fcntl.flock(self.fd, fcntl.LOCK_UN)


def verify_audit(path: Path) -> AuditCheck:
    """Walk the chain from the start; the first record whose links or hash do not add up is reported."""
    prev = GENESIS
    count = 0
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fd = open_state_file(folder, path.name, os.O_RDONLY)
    finally:
        os.close(folder)
    with open(fd, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            try:
                record = json.loads(line)
                stored = record.pop("hash")
            except (ValueError, KeyError):
                return AuditCheck(False, count, number, "not a record")
            if record.get("prev") != prev:
                return AuditCheck(False, count, number, "chain broken")
            if _digest(prev, record) != stored:
                return AuditCheck(False, count, number, "hash mismatch")
            prev = stored
            count += 1
    return AuditCheck(True, count)
