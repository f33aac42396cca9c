"""delete: a file, a symlink (unlinked, never followed) or, with `recursive`, a folder and everything in it, as
one change set whose previous bytes, modes, times, folders and links the journal keeps, so /undo puts it all
back.

A delete the journal cannot keep (more bytes than its keep limit, or more files than a change may hold) is
refused unless `force`, which deletes without a journal record: it cannot be undone, and says so."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError, is_a_folder
from stringsh.escapes import shown_name
from stringsh.hints import command_word
from stringsh.workspace.journalrows import TreeOp
from stringsh.workspace.models import FileChange
from stringsh.workspace.ops.apply import apply_locked
from stringsh.workspace.ops.guard import keep_limit, require
from stringsh.workspace.paths import found_names
from stringsh.workspace.tree import MISSING_HINT, Walk, locate, read_link, walk

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace


class DeleteRequest(NamedTuple):
    path: str
    recursive: bool = False
    ignore_missing: bool = False
    force: bool = False
    topic: str = "main"


class DeleteOutcome(NamedTuple):
    rel: str
    deleted: bool
    kind: str  # file | dir | symlink | missing
    files: int
    folders: int
    change_id: int | None  # None: nothing deleted, or deleted with `force` beyond the journal (no undo)


def delete(ws: Workspace, request: DeleteRequest) -> DeleteOutcome:
    require(ws.policy, ws.policy.permissions.delete, "delete", mutating=True)
    with ws.state.audited("delete", [request.path], request.topic) as note, ws.locked(), found_names(request.path):
        with locate(ws.confiner, request.path) as spot:
            rel, kind = spot.rel, spot.kind
            if kind == "missing":
                if request.ignore_missing:
                    return DeleteOutcome(rel, False, "missing", 0, 0, None)
                raise StringError("NOT_FOUND", f"File not found: {shown_name(rel)}", MISSING_HINT)
            if kind == "other":
                raise StringError("INVALID_TARGET", f"Not a file, folder or link: {shown_name(rel)}",
                                  "Nothing was changed; remove it outside stringsh.")
            if kind == "dir" and not request.recursive:
                raise is_a_folder(rel, f"Nothing was changed; /rm -r {command_word(rel)} deletes it and everything "
                                  "in it.")
            found = Walk()
            if kind == "dir":
                found = walk(ws.confiner, spot)
            elif kind == "symlink":
                found.links.append((rel, read_link(spot.name, spot.fd)))
            else:
                found.files.append((rel, 0, spot.st.st_size if spot.st else 0))
        beyond = _beyond_journal(ws, rel, found)
        if beyond is not None and not request.force:
            raise beyond
        if beyond is not None:
            _delete_now(ws, found)
            note.outcome = "forced"
            return DeleteOutcome(rel, True, kind, len(found.files), len(found.dirs), None)
        files = [FileChange(path, None) for path, _, _ in found.files]
        tree = (*(TreeOp(path, "link", "remove", None, target) for path, target in found.links),
                *(TreeOp(path, "dir", "remove", mode) for path, mode in reversed(found.dirs)))
        cs = apply_locked(ws, files, request.topic, "apply", None, tree, exact=True, keep_times=True)
        note.change = cs
        return DeleteOutcome(rel, True, kind, len(found.files), len(found.dirs), cs)


def _beyond_journal(ws: Workspace, rel: str, found: Walk) -> StringError | None:
    """The refusal for a delete the journal could not keep for undo, None when it can."""
    budget, limit = ws.policy.changes.max_files, keep_limit(ws.policy)
    hint = f"Nothing was changed; /rm -r --force {command_word(rel)} deletes it without undo."
    if len(found.files) > budget:
        return StringError("BUDGET_EXCEEDED", f"{shown_name(rel)} holds {len(found.files)} files; the change "
                           f"journal keeps at most {budget} in one change for undo.", hint)
    if found.size > limit:
        return StringError("TOO_LARGE", f"{shown_name(rel)} holds {found.size} bytes; the change journal keeps at "
                           f"most {limit} for undo.", hint)
    return None


def _delete_now(ws: Workspace, found: Walk) -> None:
    """`force`: unlink every file and link and remove every folder, innermost first, without journal records
    (each still found without following links, and only while it is the kind the walk saw)."""
    for path in [p for p, _, _ in found.files] + [p for p, _ in found.links]:
        with locate(ws.confiner, path) as spot:
            if spot.kind in ("file", "symlink") and spot.rel == path:
                os.unlink(spot.name, dir_fd=spot.fd)
    for path, _ in reversed(found.dirs):
        with locate(ws.confiner, path) as spot:
            if spot.kind == "dir" and spot.rel == path:
                os.rmdir(spot.name, dir_fd=spot.fd)
