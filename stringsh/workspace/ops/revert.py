"""revert and undo: put back the bytes a change set replaced, as a new change set; CONFLICT when a file
changed since, or when a symlink now stands where the change wrote a file (undo never deletes or rewrites
through a swapped link). Undo walks the topic's changes back one at a time."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError
from stringsh.workspace import changes
from stringsh.workspace.atomic import sha256
from stringsh.workspace.journal import MissingBlob
from stringsh.workspace.models import FileChange, RevertedFile, RevertOutcome
from stringsh.workspace.ops.appending import revert_append
from stringsh.workspace.ops.apply import apply_locked
from stringsh.workspace.ops.guard import require
from stringsh.workspace.textio import count_lines, decode

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace


class RevertRequest(NamedTuple):
    change_id: int
    topic: str | None = None


class UndoRequest(NamedTuple):
    topic: str


def revert(ws: Workspace, request: RevertRequest) -> RevertOutcome:
    require(ws.policy, ws.policy.permissions.revert, "revert", mutating=True)
    with ws.state.audited("revert", [str(request.change_id)], request.topic) as note, ws.locked():
        outcome = revert_locked(ws, request.change_id, request.topic)
        note.change = outcome.change_id
        return outcome


def undo(ws: Workspace, request: UndoRequest) -> RevertOutcome:
    """Revert the topic's newest change that is not undone yet; each call walks one change further back."""
    require(ws.policy, ws.policy.permissions.revert, "revert", mutating=True)
    with ws.state.audited("undo", [], request.topic) as note, ws.locked():
        change_id = ws.journal.last_undoable(request.topic)
        if change_id is None:
            raise StringError("NOT_FOUND", "Nothing to undo.")
        outcome = revert_locked(ws, change_id, request.topic)
        note.change = outcome.change_id
        return outcome


def revert_locked(ws: Workspace, change_id: int, topic: str | None) -> RevertOutcome:
    journal = ws.journal
    row = journal.get(change_id)
    if row is None:
        raise StringError("NOT_FOUND", f"No change {change_id} in the journal.")
    if row.kind != "apply" or row.state != "done":
        raise StringError("INVALID_TARGET", f"Change {change_id} cannot be reverted ({row.kind}, {row.state}).")
    if row.reverted_by is not None:
        raise StringError("INVALID_TARGET", f"Change {change_id} was already reverted by change {row.reverted_by}.")
    rows = journal.files(change_id)
    if rows and rows[0].prev_size is not None:  # an append: cut back to the old length (ops/appending.py)
        return revert_append(ws, change_id, rows[0], topic or row.topic)
    files = []
    for f in rows:
        try:
            prev = None if f.prev_sha is None else journal.blob(f.prev_sha)
        except MissingBlob:
            raise StringError(
                "NOT_FOUND",
                f"Cannot undo change {change_id}: the journal no longer holds the previous bytes of {f.path}.",
                f"Nothing was changed; restore {f.path} by hand (from version control) if you need its old content.",
            ) from None
        files.append(FileChange(f.path, prev, f.new_sha or "", f.prev_mode))
    try:
        cs = apply_locked(ws, files, topic or row.topic, "revert", change_id)
    except StringError as exc:
        if exc.code != "CONFLICT":
            raise
        changed = next((f.path for f in rows if _sha_of(ws, f.path) != (f.new_sha or "")), None)
        if changed is None:  # the same bytes, reached through a link swapped in where the change wrote a file
            for f in rows:
                _require_same_path(ws, f.path, change_id)
            changed = rows[0].path
        raise StringError(
            "CONFLICT",
            f"Refusing to undo: {changed} changed since change {change_id} wrote it.",
            f"Open {changed} to see its current content; nothing was changed.",
        ) from None
    done = []
    for f, change in zip(rows, files, strict=True):
        action = "deleted" if f.prev_sha is None else ("restored" if f.new_sha is None else "reverted")
        lines = 0 if change.data is None else _lines(change.data)
        done.append(RevertedFile(f.path, action, lines))
    return RevertOutcome(cs, change_id, tuple(done))


def _require_same_path(ws: Workspace, path: str, change_id: int) -> None:
    """CONFLICT when `path` now leads elsewhere through a symlink: undo must touch the file the change wrote,
    never delete or rewrite what a link swapped in since points at (apply_locked refuses it; this words it)."""
    try:
        with ws.confiner.resolve(path, create=True) as res:
            now = res.rel
    except (StringError, OSError):
        return
    if now != path:
        raise StringError(
            "CONFLICT",
            f"Refusing to undo: {path} is now a symbolic link (to {now}), not the file change {change_id} wrote.",
            f"Nothing was changed; remove the link or restore {path} by hand, then undo again.",
        )


def _sha_of(ws: Workspace, path: str) -> str:
    try:
        with ws.confiner.resolve(path, create=True) as res:
            data, _ = changes.current_bytes(res)
    except (StringError, OSError):
        return "?"
    return "" if data is None else sha256(data)


def _lines(data: bytes) -> int:
    try:
        text, _, _ = decode(data, "")
    except StringError:
        return data.count(b"\n")
    return count_lines(text)
