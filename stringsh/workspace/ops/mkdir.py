"""mkdir: one folder (and its missing parents with `create_parents`), journalled so /undo removes it again."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError
from stringsh.workspace.journalrows import TreeOp
from stringsh.workspace.ops.apply import apply_locked
from stringsh.workspace.ops.guard import require
from stringsh.workspace.tree import locate

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace


class MkdirRequest(NamedTuple):
    path: str
    create_parents: bool = False
    ignore_existing: bool = False
    topic: str = "main"


class MkdirOutcome(NamedTuple):
    rel: str
    created: bool
    #: The folders made, outermost first (the parents `create_parents` added, then the folder).
    made: tuple[str, ...]
    change_id: int | None


def mkdir(ws: Workspace, request: MkdirRequest) -> MkdirOutcome:
    require(ws.policy, ws.policy.permissions.mkdir, "mkdir", mutating=True)
    with ws.state.audited("mkdir", [request.path], request.topic) as note, ws.locked():
        with locate(ws.confiner, request.path) as spot:
            rel, kind, missing = spot.rel, spot.kind, spot.missing
        if kind == "dir":
            if request.ignore_existing:
                return MkdirOutcome(rel, False, (), None)
            raise StringError("CONFLICT", f"Folder exists already: {rel}", "Nothing was changed; /ls it to see it.")
        if kind != "missing":
            raise StringError("CONFLICT", f"A {kind} exists already at {rel}", "Nothing was changed.")
        parts = rel.split("/")
        if missing and not request.create_parents:
            outer, parent = "/".join(parts[: len(parts) - len(missing)]), "/".join(parts[:-1])
            raise StringError("NOT_FOUND", f"Folder not found: {outer}",
                              f"Use /mkdir -p {rel} to make {parent} as well.")
        made = tuple("/".join(parts[: len(parts) - len(missing) + k]) for k in range(len(missing) + 1))
        cs = apply_locked(ws, [], request.topic, "apply", None, tuple(TreeOp(d, "dir", "make") for d in made))
        note.change = cs
        return MkdirOutcome(rel, True, made, cs)
