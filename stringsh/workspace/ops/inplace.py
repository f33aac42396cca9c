"""Changing a file in place, as one journalled change: the step every in-place editor shares (the part edit of
partedit.py, the exact-replace editor of replace.py, OPERATOR_CMD's edit lists). The file is read under the
workspace lock, held against the caller's guard (guards.py), changed by the editor's function, checked (a body
never writes a shown mask back over a secret), encoded back through textio (encoding, BOM, line endings and final
newline kept; a character the encoding cannot hold is ENCODING) and applied guarded by the bytes read. Threads of
one process editing at once share the lock's hold and its fsyncs (group commit: ops/grouped.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from stringsh.errors import StringError
from stringsh.workspace.guards import NO_GUARD, Guard
from stringsh.workspace.ops.grouped import Edit, Rewritten, commit_edit
from stringsh.workspace.ops.guard import require
from stringsh.workspace.ops.read import TextFile

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace


def rewrite(ws: Workspace, path: str, topic: str, op: str, guard: Guard, change: Callable[[TextFile], str],
            stale: Callable[[str], StringError] | None = None, *, body_checked: bool = False) -> Rewritten:
    """Apply `change` to the file's text as one change set; needs `write` and `edit`. A `WholeFile` guard the file
    no longer matches is `stale(rel)` (each editor words its next step; default `guards.changed_since`); a
    `PartText` guard is the part editor's to hold (partedit.py), which says so with `body_checked`, having checked
    its body against its part: otherwise the new text is checked against the whole file's (more masks where the
    file holds a secret is INVALID_PAYLOAD). `op` names the operation in the audit record."""
    require(ws.policy, ws.policy.permissions.write, "write", mutating=True)
    require(ws.policy, ws.policy.permissions.edit, "edit")
    with ws.state.audited(op, [path], topic) as note:
        done = commit_edit(ws, Edit(path, topic, guard, change, stale, body_checked))  # group commit: ops/grouped.py
        note.change = done.change_id
        return done


__all__ = ["NO_GUARD", "Rewritten", "rewrite"]
