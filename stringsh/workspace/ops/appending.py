"""append with O_APPEND: a file of any size grows at its end, journalled by its old length instead of a copy.

The old bytes never move: the file is streamed once (its hash, UTF-8 check and line endings, in bounded memory)
and the addition written with O_APPEND. The journal row records the old length (`prev_size`), so undo cuts the
file back to that length once it still holds exactly what the append wrote, and crash recovery does the same for
an append interrupted half way. A file of at most `KEEP_COPY_BYTES` also has its previous bytes kept (and its undo
the bytes it cuts off), so the change before it, whose result they are, keeps its counts and diff in `/changes`
while it is kept (the journal's `keep_changes`/`keep_bytes` bound them as every kept copy); a larger file keeps
none, as `/changes` summarises such a side by size anyway.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import stat
from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import ALLOW_LIST_HINT, NOT_FOUND_HINT, POLICY_FILE_HINT, Step, StringError, hint, is_a_folder
from stringsh.hints import ICONV, shell_command
from stringsh.workspace.globs import GlobSet
from stringsh.workspace.journalfile import JournalUnavailable, rolled_back
from stringsh.workspace.journalrows import FileRow
from stringsh.workspace.models import RevertedFile, RevertOutcome, WriteOutcome
from stringsh.workspace.ops.guard import check_hardlink, check_size
from stringsh.workspace.oserrors import FULL
from stringsh.workspace.recovery import CHUNK, UTF8_BOM, file_hash, open_appendable
from stringsh.workspace.textio import BINARY_SNIFF, ENCODING_HINT, adapt_newlines, count_lines, encode

if TYPE_CHECKING:
    from collections.abc import Callable

    from stringsh.workspace.engine import Workspace
    from stringsh.workspace.journal import Journal
    from stringsh.workspace.paths import Resolved
    from stringsh.workspace.policy import JournalKeep

WIDE_BOMS = (b"\xff\xfe", b"\xfe\xff")  # UTF-16 and UTF-32: appended the whole-file way (ops/write.py)
LONE_CR = re.compile(rb"\r(?!\n)")
LONE_LF = re.compile(rb"(?<!\r)\n")
#: The largest file whose bytes an append (or its undo) keeps a copy of: the largest side `/changes` diffs.
KEEP_COPY_BYTES = 1024 * 1024


class Scan(NamedTuple):
    """What appending needs to know about a file's `size` bytes, learnt in one streamed pass."""

    size: int
    digest: hashlib._Hash
    bom: bool
    ending: str  # the dominant line ending ("\n" when there is none)
    final_newline: bool
    lines: int
    data: bytes | None  # the bytes scanned, for a file of at most KEEP_COPY_BYTES (the copy the journal keeps)


def append_fast(ws: Workspace, path: str, text: str, topic: str) -> WriteOutcome | None:
    """Append `text` (with `\\n` endings) in the file's dominant ending, a line ending first when the file lacks a
    final one; None for a UTF-16/32 file (the caller appends it the whole-file way). The caller holds the lock."""
    ws.state.workspace_folder()
    res = ws.confiner.resolve(path, create=True)
    try:
        if res.st is None:
            raise StringError("NOT_FOUND", f"File not found: {res.rel}", NOT_FOUND_HINT)
        _check_target(ws, res)
        fd = open_appendable(res)
        try:
            st = os.fstat(fd)
            check_hardlink(ws.policy, res, st)
            scan = _scan(fd, res.rel, st.st_size, _keep_limit(ws))
            if scan is None:
                return None
            addition = adapt_newlines(text, scan.ending)
            joined = scan.size > (3 if scan.bom else 0) and not scan.final_newline  # a last line without an ending
            if joined:
                addition = scan.ending + addition
            data = encode(addition, "utf-8", False, res.rel)
            check_size(ws.policy, path, data)
            _check_budget(ws, data)
            prev_sha = scan.digest.hexdigest()
            digest = scan.digest.copy()
            digest.update(data)
            new_sha = digest.hexdigest()
            mode = stat.S_IMODE(st.st_mode)
            row = FileRow(0, res.rel, prev_sha, new_sha, mode, mode, prev_size=scan.size)
            cs = _journalled(ws.journal, topic, ws.frontend, "apply", None, row, fd, lambda: _write_all(fd, data),
                             ws.command_line(), ws.policy.journal,
                             {prev_sha: scan.data} if scan.data is not None else {})
            lines = scan.lines + count_lines(addition) - (1 if joined else 0)
            return WriteOutcome(res.rel, False, scan.size + len(data), lines, cs, new_sha)
        finally:
            os.close(fd)
    finally:
        res.close()


def revert_append(ws: Workspace, change_id: int, row: FileRow, topic: str, kind: str = "revert") -> RevertOutcome:
    """Undo an append: cut the file back to its old length, once it holds exactly the bytes the append left.
    `kind="apply"`: a `/revert`, recorded as a change of its own."""
    assert row.prev_size is not None and row.new_sha is not None
    res = ws.confiner.resolve(row.path, create=True)
    try:
        if res.rel != row.path or res.st is None or not stat.S_ISREG(res.st.st_mode):
            raise _changed(row.path, change_id)
        fd = open_appendable(res)
        try:
            digest, head_lines = file_hash(fd, row.prev_size)
            if digest != row.new_sha:
                raise _changed(row.path, change_id)
            undo_row = FileRow(0, row.path, row.new_sha, row.prev_sha, row.new_mode, row.prev_mode,
                               prev_size=row.prev_size)
            cs = _journalled(ws.journal, topic, ws.frontend, kind, change_id, undo_row, fd,
                             lambda: os.ftruncate(fd, row.prev_size or 0), ws.command_line(), ws.policy.journal,
                             _copy(fd, os.fstat(fd).st_size, row.new_sha, _keep_limit(ws)))
        finally:
            os.close(fd)
    finally:
        res.close()
    return RevertOutcome(cs, change_id, (RevertedFile(row.path, "reverted", head_lines),))


def _keep_limit(ws: Workspace) -> int:
    """The largest file whose previous bytes an append (or its undo) keeps: KEEP_COPY_BYTES, never past the read
    limit (a file too large to read is never copied whole into the journal either)."""
    return min(KEEP_COPY_BYTES, ws.policy.limits.max_read_bytes)


def _copy(fd: int, size: int, sha: str, limit: int) -> dict[str, bytes]:
    """For an undo: the bytes it cuts off from, by hash, when the file is small enough to keep (`limit`) and they
    still hash as checked."""
    if size > limit:
        return {}
    data = os.pread(fd, size, 0)
    return {sha: data} if len(data) == size and hashlib.sha256(data).hexdigest() == sha else {}


def _journalled(journal: Journal, topic: str, frontend: str, kind: str, reverts: int | None, row: FileRow,
                fd: int, act: Callable[[], object], command: str = "", keep: JournalKeep | None = None,
                blobs: dict[str, bytes] | None = None) -> int:
    """Record the change durably (with `blobs`, the copy kept), do it (`act`), make it durable; a failure puts the
    old length back."""
    cs = journal.begin(topic, frontend, kind, reverts, [row], blobs or {}, command=command)
    try:
        journal.seal(cs)
        act()
        os.fsync(fd)
    except BaseException:
        if kind == "apply":
            os.ftruncate(fd, row.prev_size or 0)
        rolled_back(journal, cs)
        raise
    with contextlib.suppress(JournalUnavailable):  # a journal too full for the mark: recovery marks it done
        journal.finish(cs, "done", reverts, keep)
    return cs


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(fd, view) :]
    except OSError as exc:
        if exc.errno in FULL:  # NO_SPACE says how much was needed (oserrors.py); the caller cuts the file back
            exc.needed = len(data)  # type: ignore[attr-defined]
        raise


def _check_target(ws: Workspace, res: Resolved) -> None:
    """What apply_locked checks of every file it changes, for the one file an append changes."""
    assert res.st is not None
    if stat.S_ISDIR(res.st.st_mode):
        raise is_a_folder(res.rel)
    if res.rel in ws.policy_files:
        raise StringError("NOT_PERMITTED",
                          f"{res.rel} is the workspace's policy and cannot be changed through stringsh",
                          POLICY_FILE_HINT)
    if not GlobSet(ws.policy.changes.allow_globs).covers(res.rel):
        raise StringError("NOT_PERMITTED", f"Path is not on the policy's change allow-list: {res.rel}", ALLOW_LIST_HINT)


def _check_budget(ws: Workspace, data: bytes) -> None:
    lines = data.count(b"\n") + 1
    if lines > ws.policy.changes.max_loc:
        raise StringError("BUDGET_EXCEEDED", f"Too many lines changed: {lines} > {ws.policy.changes.max_loc}")


def _changed(path: str, change_id: int) -> StringError:
    return StringError("CONFLICT", f"Refusing to undo: {path} changed since change {change_id} wrote it.",
                       f"Open {path} to see its current content; nothing was changed.")


def _scan(fd: int, rel: str, size: int, keep_limit: int) -> Scan | None:
    """Hash, validate (binary, UTF-8) and measure the line endings of the file's first `size` bytes."""
    head = os.pread(fd, BINARY_SNIFF, 0)
    if head.startswith(WIDE_BOMS) or head.startswith(b"\x00\x00\xfe\xff"):
        return None
    bom = head.startswith(UTF8_BOM)
    if b"\x00" in head:
        raise StringError("BINARY_FILE", f"Binary file: {rel} ({size} bytes)", "Only its metadata can be shown.")
    digest = hashlib.sha256()
    kept: list[bytes] | None = [] if size <= keep_limit else None
    counts = {"\r\n": 0, "\r": 0, "\n": 0}
    first: dict[str, int] = {}
    offset = 0
    carry = b""  # an incomplete UTF-8 sequence or a `\r` that may start `\r\n`, continued in the next chunk
    last = b""
    while offset < size:
        chunk = os.pread(fd, min(CHUNK, size - offset), offset)
        if not chunk:
            break
        digest.update(chunk)
        if kept is not None:
            kept.append(chunk)
        start = offset - len(carry)
        buf = carry + chunk
        offset += len(chunk)
        last = chunk[-1:]
        final = offset >= size
        carry = b""
        try:
            buf.decode("utf-8")
        except UnicodeDecodeError as exc:
            if final or exc.reason != "unexpected end of data":
                raise _bad_utf8(fd, rel, start + exc.start) from None
            carry = buf[exc.start :]
            buf = buf[: exc.start]
        if not final and buf.endswith(b"\r"):
            carry, buf = b"\r" + carry, buf[:-1]
        _tally(buf, start, counts, first)
    ending = "\n"
    if any(counts.values()):
        ending = max(counts, key=lambda e: (counts[e], -first.get(e, size)))
    lines = counts["\r\n"] + counts["\r"] + counts["\n"] + (1 if size > (3 if bom else 0) and last not in (b"\n", b"\r")
                                                           else 0)
    data = b"".join(kept) if kept is not None else None
    return Scan(size, digest, bom, ending, last in (b"\n", b"\r"), lines,
                data if data is not None and len(data) == size else None)


def _tally(buf: bytes, start: int, counts: dict[str, int], first: dict[str, int]) -> None:
    crlf = buf.count(b"\r\n")
    counts["\r\n"] += crlf
    counts["\r"] += buf.count(b"\r") - crlf
    counts["\n"] += buf.count(b"\n") - crlf
    for ending, finder in (("\r\n", lambda: buf.find(b"\r\n")), ("\r", lambda: _search(LONE_CR, buf)),
                           ("\n", lambda: _search(LONE_LF, buf))):
        if ending not in first:
            pos = finder()
            if pos >= 0:
                first[ending] = start + pos


def _search(pattern: re.Pattern[bytes], buf: bytes) -> int:
    match = pattern.search(buf)
    return match.start() if match else -1


def _bad_utf8(fd: int, rel: str, offset: int) -> StringError:
    bad = os.pread(fd, 4, offset).hex(" ")
    return StringError("ENCODING", f"{rel} is not valid UTF-8 (bytes {bad} at offset {offset}); nothing was changed.",
                       hint(f"{ENCODING_HINT} ", Step("read", path=rel),
                            " shows it as Latin-1; to append, convert it to UTF-8 first (",
                            Step("shell", command=shell_command(ICONV, source="LATIN1", rel=rel, out=rel + ".utf8")),
                            ")."))
