"""move: a file, a symlink (the link itself) or a whole folder to a new path, as one change set (the source's
files deleted, the destination's written, folders and links made and removed), so /undo puts it all back.

Each file keeps its mode and its access and modification times, as mv(1) does, and the journal keeps the times of
the files the move takes away, so /undo gives them back too."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError
from stringsh.escapes import shown_name
from stringsh.workspace import atomic
from stringsh.workspace.atomic import sha256
from stringsh.workspace.journalrows import TreeOp
from stringsh.workspace.models import FileChange
from stringsh.workspace.ops.apply import apply_locked
from stringsh.workspace.ops.guard import check_size, keep_limit, require
from stringsh.workspace.paths import found_names
from stringsh.workspace.tree import MISSING_HINT, Spot, check, locate, read_link, walk

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace


class MoveRequest(NamedTuple):
    source: str
    dest: str
    overwrite: bool = False
    create_parents: bool = False
    topic: str = "main"


class MoveOutcome(NamedTuple):
    source: str
    dest: str
    kind: str  # file | dir | symlink
    files: int  # files moved (a folder's, or 1)
    replaced: bool  # the destination file was overwritten (--force)
    change_id: int


def destination(ws: Workspace, source: Spot, dest: str, verb: str) -> Spot:
    """`dest`, or the source's name inside `dest` when that is an existing folder (or ends in `/`)."""
    spot = locate(ws.confiner, dest)
    if spot.kind == "dir" and spot.rel != source.rel:
        inner = f"{spot.rel}/{source.name}"
        spot.close()
        return locate(ws.confiner, inner)
    if dest.endswith("/") and spot.kind == "missing":
        spot.close()
        raise StringError("NOT_FOUND", f"Folder not found: {spot.rel}",
                          f"Nothing was changed; make it first with /mkdir -p {spot.rel}, then {verb} again.")
    return spot


def refuse_existing(source: Spot, dest: Spot, overwrite: bool, verb: str) -> None:
    """Onto itself, into itself, onto a folder or link, or onto a file without --force: refused."""
    if dest.rel == source.rel:
        raise StringError("INVALID_TARGET", f"Source and destination are the same: {source.rel}",
                          "Nothing was changed; name a different destination.")
    if source.kind == "dir" and dest.rel.startswith(source.rel + "/"):
        raise StringError("INVALID_TARGET", f"Cannot move a folder into itself: {source.rel} → {dest.rel}",
                          "Nothing was changed; choose a destination outside the folder.")
    if dest.kind == "missing":
        return
    if not overwrite:
        raise StringError("CONFLICT", f"Destination exists: {dest.rel}",
                          f"Nothing was changed; /{verb} --force {source.rel} {dest.rel} replaces it.")
    if dest.kind != "file" or source.kind != "file":
        raise StringError("INVALID_TARGET", f"Only a file can replace a file: {dest.rel} is a {dest.kind}",
                          "Nothing was changed; delete or move the destination first.")


def parents(ws: Workspace, dest: Spot, create: bool, verb: str) -> tuple[TreeOp, ...]:
    """The destination's missing folders to make (outermost first); NOT_FOUND unless `create`."""
    if not dest.missing:
        return ()
    parts = dest.rel.split("/")
    first = len(parts) - 1 - len(dest.missing)
    if not create:
        folder = "/".join(parts[:-1])
        raise StringError("NOT_FOUND", f"Folder not found: {'/'.join(parts[: first + 1])}",
                          f"Nothing was changed; make it first with /mkdir -p {folder}, then {verb} again.")
    return tuple(TreeOp("/".join(parts[: first + k + 1]), "dir", "make") for k in range(len(dest.missing)))


def read_file(ws: Workspace, spot: Spot, rel: str) -> tuple[bytes, int, tuple[int, int]]:
    """A regular file's bytes, mode and (atime_ns, mtime_ns), read without following a link swapped in since
    (the times as they were before this read)."""
    name = rel.rsplit("/", 1)[-1]
    if rel == spot.rel:
        data, st = atomic.read_at(spot.fd, name, rel, keep_limit(ws.policy))
    else:
        with ws.confiner.resolve(rel, create=True) as res:
            if res.rel != rel:
                raise StringError("CONFLICT",
                                  f"{shown_name(rel)} changed while it was being moved; nothing was changed.")
            data, st = atomic.read_at(res.parent_fd, res.name, rel, keep_limit(ws.policy))
    return data, st.st_mode & 0o7777, (st.st_atime_ns, st.st_mtime_ns)


def move(ws: Workspace, request: MoveRequest) -> MoveOutcome:
    require(ws.policy, ws.policy.permissions.move, "move", mutating=True)
    with ws.state.audited("move", [request.source, request.dest], request.topic) as note, ws.locked(), \
            found_names(request.source, request.dest):
        with locate(ws.confiner, request.source) as source:
            if source.kind == "missing":
                raise StringError("NOT_FOUND", f"File not found: {source.rel}", MISSING_HINT)
            if source.kind == "other":
                raise StringError("INVALID_TARGET", f"Not a file, folder or link: {source.rel}",
                                  "Nothing was changed; move it outside stringsh.")
            with destination(ws, source, request.dest, "mv") as dest:
                refuse_existing(source, dest, request.overwrite, "mv")
                made = parents(ws, dest, request.create_parents, "mv")
                files, tree = _plan(ws, source, dest, made)
                src_rel, dst_rel, kind, replaced = source.rel, dest.rel, source.kind, dest.kind == "file"
        cs = apply_locked(ws, files, request.topic, "apply", None, tree, exact=True, keep_times=True)
        note.change = cs
        return MoveOutcome(src_rel, dst_rel, kind, sum(1 for f in files if f.data is not None), replaced, cs)


def _plan(ws: Workspace, source: Spot, dest: Spot, made: tuple[TreeOp, ...]) -> tuple[list[FileChange],
                                                                                      tuple[TreeOp, ...]]:
    """The change set of the move: file deletions and writes, folders and links made then removed."""
    src, dst = source.rel, dest.rel
    if source.kind == "symlink":
        target = _readlink(source)
        return [], (*made, TreeOp(dst, "link", "make", None, target), TreeOp(src, "link", "remove", None, target))
    if source.kind == "file":
        data, mode, times = read_file(ws, source, src)
        check_size(ws.policy, dst, data)
        prev = "" if dest.kind == "missing" else None  # an overwrite: the plan keeps the old bytes for undo
        return [FileChange(src, None, sha256(data)), FileChange(dst, data, prev, mode, times)], made
    found = walk(ws.confiner, source)
    _check_amount(ws, src, len(found.files), found.size)

    def mapped(path: str) -> str:
        moved = dst + path[len(src):]
        check(ws.confiner, moved.split("/"), moved)
        return moved

    files: list[FileChange] = []
    for path, _, _ in found.files:
        data, mode, times = read_file(ws, source, path)
        files += [FileChange(path, None, sha256(data)), FileChange(mapped(path), data, "", mode, times)]
    tree = [*made, *(TreeOp(mapped(path), "dir", "make", mode) for path, mode in found.dirs)]
    tree += [TreeOp(mapped(path), "link", "make", None, target) for path, target in found.links]
    tree += [TreeOp(path, "link", "remove", None, target) for path, target in found.links]
    tree += [TreeOp(path, "dir", "remove", mode) for path, mode in reversed(found.dirs)]
    return files, tuple(tree)


def _readlink(spot: Spot) -> str:
    return read_link(spot.name, spot.fd)


def _check_amount(ws: Workspace, rel: str, count: int, size: int) -> None:
    """A folder the journal cannot keep whole is refused rather than moved (or deleted) beyond undo."""
    budget, limit = ws.policy.changes.max_files, keep_limit(ws.policy)
    if count * 2 > budget:
        raise StringError("BUDGET_EXCEEDED",
                          f"{shown_name(rel)} holds {count} files; a change may touch at most {budget}.",
                          "Nothing was changed; move smaller folders one at a time.")
    if size > limit:
        raise StringError("TOO_LARGE",
                          f"{shown_name(rel)} holds {size} bytes; the change journal keeps at most {limit} for undo.",
                          "Nothing was changed; move smaller folders one at a time.")
