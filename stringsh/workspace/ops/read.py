"""read: a regular file's bytes or strictly decoded text within the read limit, and its fingerprint."""

from __future__ import annotations

import os
import stat
import time
from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError, is_a_folder, too_large_to_read
from stringsh.workspace import atomic
from stringsh.workspace.atomic import sha256
from stringsh.workspace.ops.guard import check_hardlink, require

if TYPE_CHECKING:
    from collections.abc import Callable

    from stringsh.workspace.engine import Workspace
    from stringsh.workspace.paths import Resolved


class TextFile(NamedTuple):
    """A decoded text file. `text` keeps the file's own line endings (no translation), so slicing it and
    encoding it back with `encoding`/`bom` gives the original bytes."""

    rel: str
    text: str
    encoding: str  # "utf-8" or "utf-16-le" / "utf-16-be"; "latin-1" only when asked for (`legacy`)
    bom: bool
    newline: str  # "lf", "crlf", "cr", "mixed" or "none"
    final_newline: bool
    sha256: str  # of the raw bytes
    size: int
    mtime_ns: int
    #: The bytes, left undecoded (`text` "", `newline` ""), when the request's `known_utf8` knew them.
    raw: bytes = b""
    #: The file's identity as read (`identity_of`); () for text that never went through the file.
    identity: tuple[int, ...] = ()
    #: `time.time_ns()` taken before the file was opened: a change after it has a later ctime (see `identity_of`).
    read_ns: int = 0
    #: False when `known_identity` vouched for the bytes: `raw` is then only their first `prefix` bytes, unhashed.
    whole: bool = True

    @property
    def line_count(self) -> int:
        from stringsh.workspace.textio import count_lines

        return count_lines(self.text)


class ReadRequest(NamedTuple):
    path: str
    topic: str | None = None
    #: True: bytes that are not UTF-8 (and have no BOM) are read as Latin-1 (or detected cp1252) instead of refused;
    #: "edit": the same for an edit, refusing a file whose encoding is ambiguous (textio.decode_for_edit).
    legacy: bool | str = False
    #: (sha256, size) -> True when bytes with that hash are known to be UTF-8 without a BOM (a signed cache says so):
    #: they are then not decoded here, for a caller that decodes only the lines it shows (a repeat /open of 10 MB).
    known_utf8: Callable[[str, int], bool] | None = None
    #: (rel, identity) -> the sha256 a signed cache recorded for exactly that identity, else None. With `known_utf8`
    #: also vouching for that hash, only the first `prefix` bytes are read and nothing is hashed (a repeat /open).
    known_identity: Callable[[str, tuple[int, ...]], str | None] | None = None
    prefix: int = 0


def identity_of(st: os.stat_result) -> tuple[int, ...]:
    """What a file's bytes are trusted by without reading them, as git's index does: device, inode, size, mtime
    and ctime. Every write sets ctime to the clock's now, and no call sets it back (`touch -d` sets mtime, and ctime
    to now), so a change after `read_ns` gives another identity unless the file changed less than a clock tick
    or timestamp granule before it (the racy case: the cache refuses those, render/cache.py)."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def read_bytes(ws: Workspace, request: ReadRequest) -> bytes:
    with ws.state.audited("read", [request.path], request.topic):
        res, data, _ = _read(ws, request.path)
        res.close()
        return data


def read_text(ws: Workspace, request: ReadRequest) -> TextFile:
    """Strictly decoded text with the file's own line endings; BINARY_FILE / ENCODING / TOO_LARGE."""
    with ws.state.audited("read", [request.path], request.topic):
        with _resolve(ws, request.path) as res:
            if request.known_identity is not None and request.known_utf8 is not None:
                known = _read_known(ws, res, request)
                if known is not None:  # vouched for by its identity: the first bytes only, unhashed
                    return known
            started = time.time_ns()
            data, st = atomic.read_at(res.parent_fd, res.name, res.rel, ws.policy.limits.max_read_bytes)
            check_hardlink(ws.policy, res, st)
        digest = sha256(data)
        identity = identity_of(st)
        if request.known_utf8 is not None and request.known_utf8(digest, len(data)):
            return TextFile(res.rel, "", "utf-8", False, "", False, digest, len(data), st.st_mtime_ns, data,
                            identity, started)
        if request.legacy == "edit":
            return edit_text_file(res.rel, data, st.st_mtime_ns, digest)
        from stringsh.workspace.textio import decode, decode_or_legacy, newline_style  # (not for bytes left undecoded)

        text, encoding, bom = decode_or_legacy(data, res.rel) if request.legacy else decode(data, res.rel)
        style, final = newline_style(text)
        return TextFile(res.rel, text, encoding, bom, style, final, digest, len(data), st.st_mtime_ns, b"", identity,
                        started)


def edit_text_file(rel: str, data: bytes, mtime_ns: int, digest: str | None = None) -> TextFile:
    """Bytes as an edit reads them (`read_text`, `legacy="edit"`): also the text a change written in the same group
    commit left for the next one (groupcommit.py), which never went through the file."""
    from stringsh.workspace.textio import decode_for_edit, newline_style

    text, encoding, bom = decode_for_edit(data, rel)
    style, final = newline_style(text)
    return TextFile(rel, text, encoding, bom, style, final, digest or sha256(data), len(data), mtime_ns)


def fingerprint(ws: Workspace, request: ReadRequest) -> str | None:
    """sha256 of the file's current bytes, None when it does not exist (no audit record: a helper). Streamed, so
    a file past the read limit (one /append grew, or /undo cut back) has one too."""
    require(ws.policy, ws.policy.permissions.read, "read")
    try:
        res = ws.confiner.resolve(request.path, reading=True)
    except StringError as exc:
        if exc.code == "NOT_FOUND":
            return None
        raise
    try:
        if res.st is None:
            return None
        if stat.S_ISDIR(res.st.st_mode):
            raise is_a_folder(res.rel)
        try:
            fd, st = atomic.open_regular(res.parent_fd, res.name, res.rel)
        except StringError as exc:
            if exc.code == "NOT_FOUND":
                return None
            raise
        try:
            check_hardlink(ws.policy, res, st)
            import hashlib  # (here, not at the top: a repeat /open trusted by identity hashes nothing)

            digest = hashlib.sha256()
            while chunk := os.read(fd, 1 << 20):
                digest.update(chunk)
            return digest.hexdigest()
        finally:
            os.close(fd)
    finally:
        res.close()


def _read(ws: Workspace, path: str) -> tuple[Resolved, bytes, os.stat_result]:
    """Resolve and read a regular file within the read limit; the caller closes the returned location."""
    res = _resolve(ws, path)
    try:
        data, st = atomic.read_at(res.parent_fd, res.name, res.rel, ws.policy.limits.max_read_bytes)
        check_hardlink(ws.policy, res, st)
        return res, data, st
    except BaseException:
        res.close()
        raise


def _resolve(ws: Workspace, path: str) -> Resolved:
    """The location of a file to read (the read permission asked first); the caller closes it."""
    require(ws.policy, ws.policy.permissions.read, "read")
    res = ws.confiner.resolve(path, reading=True)
    if res.st is not None and stat.S_ISDIR(res.st.st_mode):
        res.close()
        raise is_a_folder(res.rel)
    return res


def _read_known(ws: Workspace, res: Resolved, request: ReadRequest) -> TextFile | None:
    """The file's first `prefix` bytes when the cache vouches for its identity and knows its bytes are UTF-8; None
    (read it whole) otherwise. The same checks as a whole read: a regular file, opened without following a link,
    within the read limit, not hard-linked."""
    assert request.known_identity is not None and request.known_utf8 is not None
    fd, st = atomic.open_regular(res.parent_fd, res.name, res.rel)
    try:
        limit = ws.policy.limits.max_read_bytes
        if limit is not None and st.st_size > limit:
            raise too_large_to_read(res.rel, st.st_size, limit)
        check_hardlink(ws.policy, res, st)
        identity = identity_of(st)
        digest = request.known_identity(res.rel, identity)
        if digest is None or not request.known_utf8(digest, st.st_size):
            return None
        head = os.read(fd, min(request.prefix, st.st_size))
        if len(head) != min(request.prefix, st.st_size) or identity_of(os.fstat(fd)) != identity:
            return None  # written while it was read (a write moves ctime on before its bytes land): read it whole
        return TextFile(res.rel, "", "utf-8", False, "", False, digest, st.st_size, st.st_mtime_ns, head, identity,
                        0, False)
    finally:
        os.close(fd)
