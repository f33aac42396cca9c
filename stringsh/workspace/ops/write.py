"""write and append: whole-file replacement and appending, in the existing file's encoding, BOM, line endings
and mode; each is a one-file change set (journalled, revertable)."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError
from stringsh.workspace import changes
from stringsh.workspace.atomic import sha256
from stringsh.workspace.guards import refuse_empty, refuse_mask_writeback, refuse_numbered
from stringsh.workspace.models import FileChange, WriteOutcome
from stringsh.workspace.ops.appending import append_fast
from stringsh.workspace.ops.apply import apply_locked
from stringsh.workspace.ops.guard import check_size, keep_limit, require
from stringsh.workspace.ops.read import ReadRequest, read_text
from stringsh.workspace.ops.stat import StatRequest, stat_path
from stringsh.workspace.textio import (
    LEGACY_ENCODING,
    LEGACY_ENCODINGS,
    adapt_newlines,
    count_lines,
    decode_or_legacy,
    dominant_newline,
    encode,
)

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace


class WriteRequest(NamedTuple):
    path: str
    text: str
    topic: str = "main"
    expected_sha256: str | None = None
    create_parents: bool = True
    #: "edit" for a whole-file `/edit`: the `edit` permission is needed too.
    op: str = "write"
    #: Whether an empty (or blank) text may replace the file: a whole-file `/edit` asks for `--force` first.
    empty_ok: bool = True


class AppendRequest(NamedTuple):
    path: str
    text: str
    topic: str = "main"


class Encoded(NamedTuple):
    """`text` as the bytes `path` would get, whether the file would be created, and the text it replaces (None
    for a new or binary file)."""

    data: bytes
    created: bool
    old: str | None = None


def encode_for(ws: Workspace, path: str, text: str) -> Encoded:
    """Bytes for `text` (with `\\n` endings) written to `path`, in the existing file's encoding (Latin-1 for one
    that is not UTF-8 and has no BOM), BOM and dominant line ending; a new or binary file gets UTF-8."""
    with ws.confiner.resolve(path, create=True) as res:
        prev, _ = changes.current_bytes(res, keep_limit(ws.policy))
        rel = res.rel
    if prev is None:
        return Encoded(encode(text, "utf-8", False, rel), True)
    try:
        old, encoding, bom = decode_or_legacy(prev, rel)
    except StringError:
        return Encoded(encode(text, "utf-8", False, rel), False)  # a whole replacement of a binary file
    try:
        return Encoded(encode(adapt_newlines(text, dominant_newline(old)), encoding, bom, rel), False, old)
    except StringError as exc:
        if encoding not in LEGACY_ENCODINGS:
            raise
        name = "Latin-1" if encoding == LEGACY_ENCODING else encoding
        raise StringError(exc.code, exc.message, f"{rel} is {name} and keeps its encoding. Write only characters "
                          f"{name} holds, or delete {rel} first to write it anew as UTF-8.") from None


def write_text(ws: Workspace, request: WriteRequest) -> WriteOutcome:
    """Replace the whole file, keeping encoding, BOM, line endings and mode of an existing file."""
    require(ws.policy, ws.policy.permissions.write, "write", mutating=True)
    if request.op == "edit":
        require(ws.policy, ws.policy.permissions.edit, "edit")
    path, topic = request.path, request.topic
    if not request.empty_ok:
        refuse_empty(request.text, ws.relative(path), False)
    with ws.state.audited("write", [path], topic) as note, ws.locked():
        refuse_numbered(request.text, ws.relative(path))  # audited: a refusal is a record too
        if not request.create_parents:
            parts = ws.confiner.requested_parts(path)
            if len(parts) > 1 and stat_path(ws, StatRequest("/".join(parts[:-1]))) is None:
                raise StringError("NOT_FOUND", f"Folder not found: {'/'.join(parts[:-1])}",
                                  f"Create it first: /mkdir {'/'.join(parts[:-1])}")
        encoded = encode_for(ws, path, request.text)
        if encoded.old is not None:  # the file as it is under the lock: its secrets are never masked over
            refuse_mask_writeback(ws, ws.relative(path), encoded.old, request.text)
        check_size(ws.policy, path, encoded.data)
        cs = apply_locked(ws, [FileChange(path, encoded.data, request.expected_sha256)], topic, "apply", None)
        note.change = cs
        rel = ws.journal.files(cs)[0].path
        return WriteOutcome(rel, encoded.created, len(encoded.data), count_lines(request.text), cs,
                            sha256(encoded.data))


def append_text(ws: Workspace, request: AppendRequest) -> WriteOutcome:
    """Add `text` (with `\\n` endings) at the end of an existing text file, in its encoding and dominant line
    ending; a line ending is added first when the file does not end with one. An in-place change of an existing
    file: `edit` is needed as well as `write`."""
    require(ws.policy, ws.policy.permissions.write, "write", mutating=True)
    require(ws.policy, ws.policy.permissions.edit, "edit")
    path, topic = request.path, request.topic
    with ws.state.audited("append", [path], topic) as note, ws.locked():
        fast = append_fast(ws, path, request.text, topic)  # O_APPEND, journalled by the old length
        if fast is not None:
            note.change = fast.change_id
            return fast
        current = read_text(ws, ReadRequest(path, topic))  # UTF-16: decoded and written whole
        ending = dominant_newline(current.text)
        addition = adapt_newlines(request.text, ending)
        if current.text and not current.final_newline:
            addition = ending + addition
        data = encode(current.text + addition, current.encoding, current.bom, current.rel)
        check_size(ws.policy, path, data)
        cs = apply_locked(ws, [FileChange(path, data, current.sha256)], topic, "apply", None)
        note.change = cs
        return WriteOutcome(current.rel, False, len(data), count_lines(current.text + addition), cs, sha256(data))
