"""read: a regular file's bytes or strictly decoded text within the read limit, and its fingerprint."""

from __future__ import annotations

import hashlib
import os
import stat
from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError, is_a_folder
from stringsh.workspace import atomic
from stringsh.workspace.atomic import sha256
from stringsh.workspace.ops.guard import check_hardlink, require
from stringsh.workspace.textio import count_lines, decode, decode_for_edit, decode_or_legacy, newline_style

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

    @property
    def line_count(self) -> int:
        return count_lines(self.text)


class ReadRequest(NamedTuple):
    path: str
    topic: str | None = None
    #: True: bytes that are not UTF-8 (and have no BOM) are read as Latin-1 (or detected cp1252) instead of refused;
    #: "edit": the same for an edit, refusing a file whose encoding is ambiguous (textio.decode_for_edit).
    legacy: bool | str = False
    #: sha256 -> True when bytes with that hash are known to be UTF-8 without a BOM (a signed cache says so): they
    #: are then not decoded here, for a caller that decodes only the lines it shows (a repeat /open of 10 MB).
    known_utf8: Callable[[str], bool] | None = None


def read_bytes(ws: Workspace, request: ReadRequest) -> bytes:
    with ws.state.audited("read", [request.path], request.topic):
        res, data, _ = _read(ws, request.path)
        res.close()
        return data


def read_text(ws: Workspace, request: ReadRequest) -> TextFile:
    """Strictly decoded text with the file's own line endings; BINARY_FILE / ENCODING / TOO_LARGE."""
    with ws.state.audited("read", [request.path], request.topic):
        res, data, st = _read(ws, request.path)
        res.close()
        digest = sha256(data)
        if request.known_utf8 is not None and request.known_utf8(digest):
            return TextFile(res.rel, "", "utf-8", False, "", False, digest, len(data), st.st_mtime_ns, data)
        if request.legacy == "edit":
            return edit_text_file(res.rel, data, st.st_mtime_ns, digest)
        text, encoding, bom = decode_or_legacy(data, res.rel) if request.legacy else decode(data, res.rel)
        style, final = newline_style(text)
        return TextFile(res.rel, text, encoding, bom, style, final, digest, len(data), st.st_mtime_ns)


def edit_text_file(rel: str, data: bytes, mtime_ns: int, digest: str | None = None) -> TextFile:
    """Bytes as an edit reads them (`read_text`, `legacy="edit"`): also the text a change written in the same group
    commit left for the next one (groupcommit.py), which never went through the file."""
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
    require(ws.policy, ws.policy.permissions.read, "read")
    res = ws.confiner.resolve(path, reading=True)
    try:
        if res.st is not None and stat.S_ISDIR(res.st.st_mode):
            raise is_a_folder(res.rel)
        data, st = atomic.read_at(res.parent_fd, res.name, res.rel, ws.policy.limits.max_read_bytes)
        check_hardlink(ws.policy, res, st)
        return res, data, st
    except BaseException:
        res.close()
        raise
