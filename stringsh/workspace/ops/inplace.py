"""Changing part of a file in place, as one journalled change: the step the line-range editor (lines.py) and the
exact-replace editor (replace.py) share. The file is read under the workspace lock, held against the hash the
caller read it as, changed by the editor's function, encoded back through textio (encoding, BOM, line endings and
final newline kept; a character the encoding cannot hold is ENCODING) and applied guarded by the bytes read."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError
from stringsh.workspace.atomic import sha256
from stringsh.workspace.models import FileChange
from stringsh.workspace.ops.apply import apply_locked
from stringsh.workspace.ops.guard import check_size, require
from stringsh.workspace.ops.read import ReadRequest, TextFile, read_text
from stringsh.workspace.textio import encode

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace


class Rewritten(NamedTuple):
    current: TextFile  # the file as read
    text: str  # its new text
    change_id: int
    sha256: str  # of the bytes written


def rewrite(ws: Workspace, path: str, topic: str, op: str, expected_sha256: str | None,
            change: Callable[[TextFile], str], stale: Callable[[str], StringError]) -> Rewritten:
    """Apply `change` to the file's text as one change set; needs `write` and `edit`. `stale(rel)` is the
    CONFLICT to raise when the file no longer has the bytes the caller read (each editor words its next step);
    `op` names the operation in the audit record."""
    require(ws.policy, ws.policy.permissions.write, "write", mutating=True)
    require(ws.policy, ws.policy.permissions.edit, "edit")
    with ws.state.audited(op, [path], topic) as note, ws.locked():
        current = read_text(ws, ReadRequest(path, topic, legacy="edit"))  # Latin-1 kept
        if expected_sha256 is not None and current.sha256 != expected_sha256:
            raise stale(current.rel)
        text = change(current)
        data = encode(text, current.encoding, current.bom, current.rel)
        check_size(ws.policy, path, data)
        note.change = apply_locked(ws, [FileChange(path, data, current.sha256)], topic, "apply", None)
        return Rewritten(current, text, note.change, sha256(data))
