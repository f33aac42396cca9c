"""Changing a file in place, as one journalled change: the step every in-place editor shares (the part edit of
partedit.py, the exact-replace editor of replace.py, OPERATOR_CMD's edit lists). The file is read under the
workspace lock, held against the caller's guard (guards.py), changed by the editor's function, checked (a body
never writes a shown mask back over a secret), encoded back through textio (encoding, BOM, line endings and final
newline kept; a character the encoding cannot hold is ENCODING) and applied guarded by the bytes read."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError
from stringsh.workspace.atomic import sha256
from stringsh.workspace.guards import NO_GUARD, Guard, WholeFile, changed_since, refuse_mask_writeback
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


def rewrite(ws: Workspace, path: str, topic: str, op: str, guard: Guard, change: Callable[[TextFile], str],
            stale: Callable[[str], StringError] | None = None, *, body_checked: bool = False) -> Rewritten:
    """Apply `change` to the file's text as one change set; needs `write` and `edit`. A `WholeFile` guard the file
    no longer matches is `stale(rel)` (each editor words its next step; default `guards.changed_since`); a
    `PartText` guard is the part editor's to hold (partedit.py), which says so with `body_checked`, having checked
    its body against its part: otherwise the new text is checked against the whole file's (more masks where the
    file holds a secret is INVALID_PAYLOAD). `op` names the operation in the audit record."""
    require(ws.policy, ws.policy.permissions.write, "write", mutating=True)
    require(ws.policy, ws.policy.permissions.edit, "edit")
    with ws.state.audited(op, [path], topic) as note, ws.locked():
        current = read_text(ws, ReadRequest(path, topic, legacy="edit"))  # Latin-1 kept
        if isinstance(guard, WholeFile) and current.sha256 != guard.sha256:
            raise (stale or changed_since)(current.rel)
        text = change(current)
        if not body_checked:
            refuse_mask_writeback(ws, current.rel, current.text, text)
        data = encode(text, current.encoding, current.bom, current.rel)
        check_size(ws.policy, path, data)
        note.change = apply_locked(ws, [FileChange(path, data, current.sha256)], topic, "apply", None)
        return Rewritten(current, text, note.change, sha256(data))


__all__ = ["NO_GUARD", "Rewritten", "rewrite"]
