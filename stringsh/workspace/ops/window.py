"""window: some lines of a file of any size, read in chunks (memory bounded), and how many lines it has in all.

A file past the read limit (a shell spool of 50 MB) cannot be read whole, but it can be paged: this streams it
once, keeps only the lines asked for (at most `max_bytes` of them, a longer line cut), and counts the rest. The
scan is bounded: it stops after `SCAN_BYTES` bytes or `SCAN_SECONDS` (a 16 GB sparse file would otherwise take a
minute), and then says how far it counted (`complete` is False, `total_lines` is a lower bound). Binary detection
is the one every read uses (a NUL in the first `BINARY_SNIFF` bytes), and a NUL further on is shown as `\\x00`,
so a window never prints raw NUL bytes.
"""

from __future__ import annotations

import os
import re
import time
from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import Step, StringError, hint
from stringsh.escapes import shown_name
from stringsh.hints import shell_command
from stringsh.workspace import atomic
from stringsh.workspace.ops.guard import check_hardlink, require
from stringsh.workspace.ops.read import identity_of
from stringsh.workspace.textio import BINARY_SNIFF

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace

CHUNK = 1 << 20
BREAK = re.compile(rb"\r\n|\r|\n")  # the shared line model (textio.BREAK), on bytes
UTF8_BOM = b"\xef\xbb\xbf"
WIDE_BOMS = (b"\xff\xfe", b"\xfe\xff")  # UTF-16 and UTF-32: not paged by bytes
#: The most bytes one windowed read looks at, and the longest it scans: past either, it counts no further.
SCAN_BYTES = 128 << 20
SCAN_SECONDS = 0.5


class WindowRequest(NamedTuple):
    path: str
    start: int  # 0-based first line
    stop: int  # 0-based line after the last one wanted
    max_bytes: int  # the most line bytes kept (a longer first line is cut to it)
    topic: str | None = None
    #: (identity, lines): the file's line count as counted when it had that identity (read.identity_of); a file
    #: opened with exactly that identity is read only as far as the window, and this count is its total
    counted: tuple[tuple[int, ...], int] | None = None


class TextWindow(NamedTuple):
    """Lines `start`… of a file (without their endings), decoded as UTF-8 (an invalid byte shown as `\\xNN`)."""

    rel: str
    lines: list[str]
    start: int
    next_line: int | None  # where to read on; None when the window reached the end of the file
    total_lines: int
    size: int
    cut_line: bool  # the last line shown was cut at `max_bytes`
    invalid_utf8: bool
    complete: bool = True  # False: the scan stopped at its bound; `total_lines` counts the first `scanned` bytes
    scanned: int = 0  # bytes of the file the scan looked at
    nul: bool = False  # a line shown held NUL bytes (shown as `\\x00`)
    identity: tuple[int, ...] = ()  # the file's identity as it was opened (read.identity_of)
    read_ns: int = 0  # the clock when it was opened, before its bytes were read (for the racy rule)


def _count(data: bytes) -> int:
    breaks = data.count(b"\n")
    if b"\r" not in data:  # most text has none: a search (memchr) is some forty times faster than a count
        return breaks
    return breaks + data.count(b"\r") - data.count(b"\r\n")


def read_window(ws: Workspace, request: WindowRequest) -> TextWindow:
    """Lines [start, stop) within `max_bytes`; one pass over the file, never more than a chunk plus the window held."""
    require(ws.policy, ws.policy.permissions.read, "read")
    with ws.state.audited("read", [request.path], request.topic):
        res = ws.confiner.resolve(request.path, reading=True)
        try:
            read_ns = time.time_ns()
            fd, st = atomic.open_regular(res.parent_fd, res.name, res.rel)
            try:
                check_hardlink(ws.policy, res, st)
                identity = identity_of(st)
                known = request.counted[1] if request.counted and request.counted[0] == identity else None
                return _scan(fd, res.rel, st.st_size, request, known)._replace(identity=identity, read_ns=read_ns)
            finally:
                os.close(fd)
        finally:
            res.close()


def _scan(fd: int, rel: str, size: int, request: WindowRequest, known: int | None) -> TextWindow:
    start, stop, budget = request.start, request.stop, max(1, request.max_bytes)
    deadline = time.monotonic() + SCAN_SECONDS
    scanned = 0
    complete = True
    lines: list[bytes] = []
    current = bytearray()
    kept = 0  # bytes held in `lines` and `current`
    cut = False
    line_no = 0
    partial = False  # the current line has bytes
    tail = b""
    first = True
    while True:
        if scanned >= SCAN_BYTES or (scanned and time.monotonic() > deadline):
            complete = False
            chunk = b""
        else:
            chunk = os.read(fd, CHUNK)
            scanned += len(chunk)
        if first:
            first = False
            if chunk.startswith(WIDE_BOMS):
                shell = shell_command("iconv -f UTF-16 -t UTF-8 {rel} | head", rel=rel)
                raise StringError("TOO_LARGE", f"{shown_name(rel)} is UTF-16 or UTF-32 text larger than the read "
                                  f"limit ({size} bytes)", hint("Read it in the shell: ", Step("shell", command=shell)))
            if chunk.startswith(UTF8_BOM):
                chunk = chunk[len(UTF8_BOM) :]
            if b"\x00" in chunk[:BINARY_SNIFF]:
                raise StringError("BINARY_FILE", f"Binary file: {rel} ({size} bytes)",
                                  "Only its metadata can be shown.")
        data = tail + chunk
        tail = b""
        if chunk and data.endswith(b"\r"):  # a `\r\n` may be split between chunks
            data, tail = data[:-1], b"\r"
        if not data:
            if not chunk:
                break
            continue
        breaks = _count(data)
        if line_no >= stop or line_no + breaks < start:  # nothing of the window in here: count only
            line_no += breaks
            partial = not data.endswith((b"\n", b"\r")) if breaks else partial or bool(data)
            if not chunk:
                break
            continue
        pos = 0
        for match in BREAK.finditer(data):
            if start <= line_no < stop:
                piece = data[pos : match.start()]
                room = budget - kept
                if len(piece) > room:
                    piece, cut = piece[: max(room, 0)], True
                current += piece
                kept += len(piece)
                lines.append(bytes(current))
                current.clear()
                if cut or kept >= budget:
                    stop = line_no + 1
            line_no += 1
            pos = match.end()
            if line_no >= stop:
                break
        rest = data[pos:]
        if line_no >= stop and rest:  # past the window: the rest of the chunk is counted, not split into lines
            breaks = _count(rest)
            line_no += breaks
            partial = not rest.endswith((b"\n", b"\r")) if breaks else True
        else:
            if rest and start <= line_no < stop:
                room = budget - kept
                current += rest[: max(room, 0)]
                kept += min(len(rest), max(room, 0))
                if len(rest) > room:
                    cut = True
            partial = bool(rest) or (pos == 0 and partial)
        if not chunk or (known is not None and line_no >= stop):  # the rest was counted before, as it is now
            break
    total = known if known is not None and line_no >= stop else line_no + (1 if partial else 0)
    if partial and start <= line_no < stop:
        lines.append(bytes(current))
        cut = cut or not complete  # the scan stopped inside this line
    end = start + len(lines)
    invalid = False
    nul = any(b"\x00" in raw for raw in lines)
    if nul:
        lines = [raw.replace(b"\x00", b"\\x00") for raw in lines]
    shown: list[str] = []
    for i, raw in enumerate(lines):
        try:
            shown.append(raw.decode("utf-8"))
        except UnicodeDecodeError as exc:
            if cut and i == len(lines) - 1 and exc.reason == "unexpected end of data":
                shown.append(raw[: exc.start].decode("utf-8", "backslashreplace"))  # a character the cut split
                continue
            invalid = True
            shown.append(raw.decode("utf-8", "backslashreplace"))
    next_line = end if end < total or (not complete and lines) else None
    return TextWindow(rel, shown, start, next_line, total, size, cut, invalid, complete, scanned, nul)
