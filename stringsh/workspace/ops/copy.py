"""copy_file: one regular file's bytes, mode and times to a new path (as `cp -p`), a one-file change set (/undo
deletes the copy, or puts back the file it replaced, times included). Needs the `write` permission: the policy
has no flag of its own for copies."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError
from stringsh.workspace.models import FileChange
from stringsh.workspace.ops.apply import apply_locked
from stringsh.workspace.ops.guard import check_size, require
from stringsh.workspace.ops.move import destination, parents, read_file, refuse_existing
from stringsh.workspace.tree import MISSING_HINT, locate

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace


class CopyRequest(NamedTuple):
    source: str
    dest: str
    overwrite: bool = False
    create_parents: bool = False
    topic: str = "main"


class CopyOutcome(NamedTuple):
    source: str
    dest: str
    size: int
    replaced: bool
    change_id: int


def copy_file(ws: Workspace, request: CopyRequest) -> CopyOutcome:
    require(ws.policy, ws.policy.permissions.write, "write", mutating=True)
    with ws.state.audited("copy", [request.source, request.dest], request.topic) as note, ws.locked():
        with locate(ws.confiner, request.source) as source:
            if source.kind == "missing":
                raise StringError("NOT_FOUND", f"File not found: {source.rel}", MISSING_HINT)
            if source.kind != "file":
                raise StringError("INVALID_TARGET", f"Only a regular file can be copied: {source.rel} is a "
                                  f"{source.kind}", "Nothing was changed; copy the files inside it one by one.")
            with destination(ws, source, request.dest, "cp") as dest:
                refuse_existing(source, dest, request.overwrite, "cp")
                made = parents(ws, dest, request.create_parents, "cp")
                data, mode, times = read_file(ws, source, source.rel)
                mode &= 0o777  # a copy never carries set-id bits (cp -p drops them too unless owner and group hold)
                check_size(ws.policy, dest.rel, data)
                src_rel, dst_rel, replaced = source.rel, dest.rel, dest.kind == "file"
        change = FileChange(dst_rel, data, None if replaced else "", mode, times)
        cs = apply_locked(ws, [change], request.topic, "apply", None, made, exact=True, keep_times=True)
        note.change = cs
        return CopyOutcome(src_rel, dst_rel, len(data), replaced, cs)
