"""Append-only, hash-chained audit log (JSON lines): who did what to which paths, never file contents or output.

Each record carries the hash of the previous one, so editing, dropping or reordering a line breaks `verify`. A
plain chain cannot see records cut from its END, so a small head file beside the log remembers how many records
the current log holds and the newest hash; `verify` compares the two. The head file is also the lock every
process takes to append (it is never renamed, unlike the log).

Size: a record is about 300 bytes (700 with a long command line). When the log would pass `MAX_BYTES` it is
rotated: renamed to the older file (replacing the previous older one, so at most two files, about 2 × `MAX_BYTES`
on disk) and a new log starts whose first record chains to the last one rotated out; `verify` follows the chain
across both files. Every file is opened in the engine's state folder without following a symlink and only as a
regular file (see state.py).
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from stringsh.workspace.atomic import open_state_file
from stringsh.workspace.digest import sha256

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from stringsh.workspace.journalcheck import Anchor
    from stringsh.workspace.redact import Redactor

GENESIS = "0" * 64
#: Rotation threshold of the current log (bytes); documented in docs/security.md's audit trail section.
MAX_BYTES = 8 * 1024 * 1024
HEAD_WIDTH = 12  # the head file: "<count, 12 digits> <hash>\n", rewritten in place
#: A command line's summary is cut here (a long one-liner is still a command, but the log is not a transcript).
SUMMARY_MAX = 300
_VALUE = r"(?!\$)(?:\"[^\"]*\"|'[^']*'|\S+)"  # a `$NAME` reference is kept: it names the secret, it is not one
_SECRET_WORD = r"(?:token|secret|password|passwd|passphrase|api[-_]?key|credentials?|auth)"
#: `GITHUB_TOKEN=…`, `--password=…`, `--api-key …`: values the redactor's patterns may not know, masked anyway.
_SECRET_ASSIGN = re.compile(rf"(?i)(\b\w*{_SECRET_WORD}\w*=){_VALUE}")
_SECRET_FLAG = re.compile(rf"(?i)(--?[\w-]*{_SECRET_WORD}[\w-]*(?:=|\s+)){_VALUE}")


class AuditFiles(NamedTuple):
    """File names in the state folder (state.py owns them): the log, the rotated older log, the head."""

    log: str
    old: str
    head: str


class AuditCheck(NamedTuple):
    """`records`: good records before the first bad one (all of them when ok); `file`: where `bad_line` is."""

    ok: bool
    records: int
    bad_line: int | None = None
    reason: str = ""
    file: str = ""
    size: int = 0


def summarize_command(text: str, redactor: Redactor) -> str:
    """What the log keeps of a command line: its first line only (later lines are a heredoc body or a script,
    i.e. contents), secrets the redactor knows and secret-named values masked, cut at `SUMMARY_MAX`."""
    masked = redactor(text, keep_lines=True)
    first, *rest = masked.split("\n")
    first = _SECRET_FLAG.sub(lambda m: m.group(1) + redactor.replacement, first)
    first = _SECRET_ASSIGN.sub(lambda m: m.group(1) + redactor.replacement, first).strip()
    if len(first) > SUMMARY_MAX:
        first = first[: SUMMARY_MAX - 1] + "…"
    more = sum(1 for line in rest if line.strip())
    return f"{first} [+{more} line{'s' if more != 1 else ''}]" if more else first


def _digest(prev: str, record: dict[str, object]) -> str:
    body = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return sha256((prev + body).encode("utf-8")).hexdigest()


def _line_hash(line: bytes) -> str:
    """A record's stored hash; a damaged line still chains (by its own digest), and `verify` reports it."""
    try:
        return str(json.loads(line)["hash"])
    except (ValueError, KeyError, TypeError):
        return sha256(line).hexdigest()


def _last_line(fd: int) -> bytes | None:
    size = os.fstat(fd).st_size
    span = 4096
    while size:
        start = max(0, size - span)
        tail = os.pread(fd, size - start, start).rstrip(b"\n")
        if b"\n" in tail or start == 0:
            return tail.rsplit(b"\n", 1)[-1] if tail else None
        span *= 4
    return None


def _parse_head(data: bytes) -> tuple[int, str] | None:
    """The head file's (record count, newest hash); None when missing or damaged."""
    try:
        count, digest = data.decode("ascii").split()
        return int(count), digest
    except (ValueError, UnicodeDecodeError):
        return None


class AuditLog:
    """Appends to the log in the open folder `dir_fd` (kept open by its owner); OSError (ELOOP, EINVAL) when a link
    or FIFO is there."""

    def __init__(self, dir_fd: int, files: AuditFiles, max_bytes: int = MAX_BYTES) -> None:
        self.dir_fd = dir_fd
        self.files = files
        self.max_bytes = max_bytes
        self.head_fd = open_state_file(dir_fd, files.head, os.O_RDWR | os.O_CREAT)
        self.fd = -1
        self._lock = threading.Lock()  # flock excludes other processes; threads share the descriptors
        self._cached: tuple[int, str] | None = None  # (log size after our last append, its hash)
        self._ours: _Appended | None = None

    def close(self) -> None:
        for fd in (self.fd, self.head_fd):
            if fd >= 0:
                os.close(fd)
        self.fd = self.head_fd = -1

    def head(self) -> tuple[int, str]:
        """(records in the current log, newest hash) as the head file says; (0, GENESIS) when it says nothing."""
        return _parse_head(os.pread(self.head_fd, 128, 0)) or (0, GENESIS)

    def append(self, record: dict[str, object]) -> None:
        """Chain `record` (without prev and hash) to the newest one and write it, rotating first when due."""
        self.append_all((record,))

    def append_all(self, records: Sequence[dict[str, object]]) -> None:
        """`append` each in order, with one lock, one look at the head and one write for all (the audit writer's)."""
        with self._lock:
            fcntl.flock(self.head_fd, fcntl.LOCK_EX)
            try:
                self._append(records)
            finally:
                fcntl.flock(self.head_fd, fcntl.LOCK_UN)

    def _current(self) -> int:
        """The log the name now holds: another process may have rotated ours away since we opened it."""
        if self.fd >= 0:
            try:
                named = os.stat(self.files.log, dir_fd=self.dir_fd, follow_symlinks=False)
            except FileNotFoundError:
                named = None
            mine = os.fstat(self.fd)
            if named is not None and (named.st_ino, named.st_dev) == (mine.st_ino, mine.st_dev):
                return self.fd
            os.close(self.fd)
            self._cached = None
        self.fd = open_state_file(self.dir_fd, self.files.log, os.O_RDWR | os.O_APPEND | os.O_CREAT)
        return self.fd

    def _prev(self, fd: int) -> str:
        """The newest record's hash: remembered from our own last append unless another process wrote since; a
        log left empty by a crash mid-rotation chains to the older file's last record."""
        size = os.fstat(fd).st_size
        if self._cached is not None and self._cached[0] == size:
            return self._cached[1]
        line = _last_line(fd)
        if line is not None:
            return _line_hash(line)
        try:
            old = open_state_file(self.dir_fd, self.files.old, os.O_RDONLY)
        except FileNotFoundError:
            return GENESIS
        try:
            line = _last_line(old)
        finally:
            os.close(old)
        return GENESIS if line is None else _line_hash(line)

    def _count(self, fd: int, prev: str) -> int:
        """Records in the current log: the head's count when the head agrees with the log, else counted."""
        size = os.fstat(fd).st_size
        if size == 0:
            return 0
        head = _parse_head(os.pread(self.head_fd, 128, 0))
        if head is not None and head[1] == prev:
            return head[0]
        return sum(1 for line in os.pread(fd, size, 0).split(b"\n") if line.strip())

    def _append(self, records: Sequence[dict[str, object]]) -> None:
        """Every request appends one record, so the common case is cheap: when the head still says what our own
        last append left and the log's name still holds our file at the size we left it, nobody else wrote or
        rotated since, and the chain, count and size are known without reading anything else."""
        head = _parse_head(os.pread(self.head_fd, 128, 0))
        ours = self._ours
        fast = ours is not None and head == (ours.count, ours.digest) and self._named(ours)
        if ours is not None and fast:
            fd, prev, count, size = self.fd, ours.digest, ours.count, ours.size
        else:
            fd = self._current()
            prev = self._prev(fd)
            count = self._count(fd, prev)
            size = os.fstat(fd).st_size
        pieces: list[bytes] = []
        for fields in records:
            body = _canonical({**fields, "prev": prev})  # json.dumps's text, its encoder made once
            digest = sha256((prev + body).encode("utf-8")).hexdigest()  # what _digest computes
            data = (body[:-1] + f',"hash":"{digest}"}}\n').encode("utf-8")
            if count and size + len(data) > self.max_bytes:
                pieces = self._write(fd, pieces, count, prev)  # what the log holds before it rotates, its head too
                os.replace(self.files.log, self.files.old, src_dir_fd=self.dir_fd, dst_dir_fd=self.dir_fd)
                fd = self._current()
                count = size = 0
                fast = False
            pieces.append(data)
            size, count, prev = size + len(data), count + 1, digest
        self._write(fd, pieces, count, prev)
        self._cached = (size, prev)
        ino = ours.ino if ours is not None and fast else os.fstat(fd).st_ino
        self._ours = _Appended(ino, size, count, prev)

    def _write(self, fd: int, pieces: list[bytes], count: int, digest: str) -> list[bytes]:
        """The records in `pieces` to the log, then the head saying how many it holds and the newest hash."""
        if pieces:
            os.write(fd, pieces[0] if len(pieces) == 1 else b"".join(pieces))
            os.pwrite(self.head_fd, f"{count:0{HEAD_WIDTH}d} {digest}\n".encode("ascii"), 0)
        return []

    def _named(self, ours: _Appended) -> bool:
        """Whether the log's name still holds the file we appended to, at the size we left it."""
        try:
            named = os.stat(self.files.log, dir_fd=self.dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            return False
        return named.st_ino == ours.ino and named.st_size == ours.size


class _Appended(NamedTuple):
    """Where our own last append left the log: its inode and size, the head's count and hash."""

    ino: int
    size: int
    count: int
    digest: str


def _read(folder: int, name: str) -> bytes | None:
    """A state file's bytes (never through a link, never a FIFO); None when it does not exist."""
    try:
        fd = open_state_file(folder, name, os.O_RDONLY)
    except FileNotFoundError:
        return None
    with open(fd, "rb") as handle:
        return handle.read()


def _walk(data: bytes | None, label: str, prev: str | None, start: int) -> tuple[AuditCheck | None, str | None, int]:
    """Check one file's chain from `prev` (None: accept its first link, the start of a rotated file). Returns the
    failure (or None), the newest hash and the records seen in all files so far."""
    lines = _records(data)
    ended = not data or data.endswith(b"\n")
    count = start
    for number, line in enumerate(lines, 1):
        try:
            record = _parsed(line)
            stored = record.pop("hash")
        except (ValueError, KeyError, TypeError, AttributeError):
            why = "truncated record" if number == len(lines) and not ended else "not a record"
            return AuditCheck(False, count, number, why, label), prev, count
        if prev is not None and record.get("prev") != prev:
            return AuditCheck(False, count, number, "chain broken", label), prev, count
        if sha256((str(record.get("prev")) + _canonical(record)).encode("utf-8")).hexdigest() != stored:  # _digest
            return AuditCheck(False, count, number, "hash mismatch", label), prev, count
        prev = stored
        count += 1
    return None, prev, count


def _parsed(line: bytes) -> Any:
    """`json.loads(line)`, the scanner called straight on the common line (UTF-8 text holding one JSON value and
    nothing else): `json.loads` per record cost a verify of a full log a third of its time in wrappers. Anything
    else goes through `json.loads` itself, so what is accepted or refused is exactly what it accepts or refuses."""
    try:
        text = line.decode("utf-8")
        value, end = _SCAN(text, 0)
    except (UnicodeDecodeError, StopIteration, ValueError):
        return json.loads(line)
    return value if end == len(text) else json.loads(line)


def _canonical_encoder() -> Callable[[dict[str, object]], str]:
    """`json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)` (a record's canonical text,
    what its hash is over) with the C encoder made once instead of once per record, which cost a verify a third of
    its time; the same text (json.dumps makes the same encoder for these arguments and calls it the same way)."""
    from json import encoder

    def no_default(value: object) -> object:
        raise TypeError(f"{type(value).__name__} is not JSON")  # a parsed record holds JSON values only

    if encoder.c_make_encoder is None:  # a Python without the accelerator: json.dumps itself
        return lambda record: json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    make = encoder.c_make_encoder(None, no_default, encoder.encode_basestring, None, ":", ",", True, False, True)
    return lambda record: "".join(make(record, 0))


_SCAN = json.JSONDecoder().scan_once
_canonical = _canonical_encoder()


def _records(data: bytes | None) -> list[bytes]:
    lines = (data or b"").split(b"\n")
    return lines[:-1] if lines[-1] == b"" else lines


def verify_audit(folder: Path, files: AuditFiles, anchor: Anchor | None = None) -> AuditCheck:
    """Walk the chain from the older (rotated) log through the current one, then hold the end against the head and
    the whole against the journal's `anchor` (check_anchor): the first record whose links, hash or place do not add
    up is reported with its file and line."""
    check = _verify(folder, files)
    if not check.ok or anchor is None:
        return check
    return check_anchor(folder, files, anchor, check)


def check_anchor(folder: Path, files: AuditFiles, anchor: Anchor, check: AuditCheck) -> AuditCheck:
    """The log outside the log: when the journal holds changes, the log must hold records, and the change set
    anchored last must be in it (its record, or the record it followed when its own is not written yet), unless
    rotation dropped it (the oldest record then links to one rotated out, never to the start of a chain)."""
    if not anchor.changes:
        return check
    if not check.records:
        return AuditCheck(False, 0, 1, f"no records, but the journal holds {anchor.changes} change set(s)",
                          files.log, check.size)
    if anchor.cs is None:
        return check
    try:
        folder_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            datas = [_read(folder_fd, name) for name in (files.old, files.log)]
        finally:
            os.close(folder_fd)
    except OSError as exc:
        return AuditCheck(False, 0, 1, f"cannot be read ({exc.strerror or exc})", str(exc.filename or files.log))
    # Only a line holding the change's number (or the anchored hash) can be its record: the others are not parsed
    # again (the chain's walk has just parsed and hashed every one), which halves a long log's check.
    lines = [line for data in datas for line in _records(data)]
    number, digest = str(anchor.cs).encode(), anchor.digest.encode()
    for line in lines:
        if number in line:
            record = json.loads(line)
            if anchor.cs in (record.get("changes") or [record.get("change")]):
                return check
    first_prev = json.loads(lines[0]).get("prev") if lines else None
    if first_prev != GENESIS or (anchor.digest != GENESIS and any(
            digest in line and str(json.loads(line).get("hash")) == anchor.digest for line in lines)):
        return check
    return AuditCheck(False, check.records, check.records + 1,
                      f"change {anchor.cs} of the journal is not in the log", files.log, check.size)


def _verify(folder: Path, files: AuditFiles) -> AuditCheck:
    try:
        folder_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except FileNotFoundError:
        return AuditCheck(True, 0)
    try:
        old, log, head_bytes = (_read(folder_fd, name) for name in (files.old, files.log, files.head))
    except OSError as exc:  # a link or FIFO planted in place of a file: refused, never followed or waited on
        return AuditCheck(False, 0, 1, f"cannot be read ({exc.strerror or exc})", str(exc.filename or files.log))
    finally:
        os.close(folder_fd)
    size = len(old or b"") + len(log or b"")
    bad, prev, total = _walk(old, files.old, None, 0)
    if bad is None:
        bad, prev, total = _walk(log, files.log, prev or GENESIS, total)
    if bad is not None:
        return bad._replace(size=size)
    lines = _records(log)
    here = len(lines)
    head = _parse_head(head_bytes or b"")
    if head is None:
        if here:
            return AuditCheck(False, total, here + 1, f"{files.head} is missing or damaged", files.log, size)
        return AuditCheck(True, total, size=size)
    count, digest = head
    if count > here:
        return AuditCheck(False, total, here + 1, f"{count - here} record(s) missing from the end", files.log, size)
    if count and _line_hash(lines[count - 1]) != digest:
        return AuditCheck(False, total - here + count - 1, count, f"does not match {files.head}", files.log, size)
    return AuditCheck(True, total, size=size)


def tail_lines(folder: Path, files: AuditFiles, count: int) -> list[str]:
    """The newest `count` lines as stored (the older file's too when the current one holds fewer)."""
    try:
        folder_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except FileNotFoundError:
        return []
    lines: list[str] = []
    try:
        for name in (files.log, files.old):
            if len(lines) >= count:
                break
            data = _read(folder_fd, name)
            text = (data or b"").decode("utf-8", errors="replace")
            lines = [line for line in text.split("\n") if line][-(count - len(lines)) :] + lines
    finally:
        os.close(folder_fd)
    return lines[-count:] if count > 0 else []
