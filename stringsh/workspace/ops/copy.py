"""copy_file: one regular file's bytes, mode and times to a new path (as `cp -p`), a one-file change set (/undo
deletes the copy, or puts back the file it replaced, times included); copy_folder: a folder's files and folders
to a new path, one change set. Both need the `write` permission: the policy has no flag of its own for copies."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError
from stringsh.escapes import shown_name
from stringsh.workspace.journalrows import TreeOp
from stringsh.workspace.models import FileChange, LinkInFolder
from stringsh.workspace.ops.apply import BUDGET_HINT, apply_locked
from stringsh.workspace.ops.guard import check_size, require
from stringsh.workspace.ops.move import destination, parents, read_file, refuse_existing
from stringsh.workspace.paths import found_names
from stringsh.workspace.tree import MISSING_HINT, check, locate, walk

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
            if source.kind == "other":  # a FIFO, socket or device, worded as /mv and /rm word it
                raise StringError("INVALID_TARGET", f"Not a file, folder or link: {source.rel}",
                                  "Nothing was changed; copy it outside stringsh.")
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


# -- a folder -----------------------------------------------------------------------------------------------


class FolderCopyRequest(NamedTuple):
    source: str
    dest: str
    create_parents: bool = False
    topic: str = "main"
    #: Plan only: walk and check everything a copy would, write nothing, record nothing (a front end's
    #: confirmation shows the plan, then asks for the copy itself).
    plan: bool = False


class FolderCopyOutcome(NamedTuple):
    source: str
    dest: str
    #: The new files, destination paths sorted (a plan's as well).
    files: tuple[str, ...]
    size: int
    #: None for a plan.
    change_id: int | None


def copy_folder(ws: Workspace, request: FolderCopyRequest) -> FolderCopyOutcome:
    """Every file of a folder (bytes, mode without set-id bits, times) and every folder in it (empty ones too, with
    their modes) to a new path, as one change set: /undo removes the copy whole. The walk is the engine's own (no
    link followed; a secret, a protected path or engine state inside refuses the whole copy, as a file copy of one
    does); the destination must not exist yet."""
    require(ws.policy, ws.policy.permissions.write, "write", mutating=True)
    if request.plan:
        with found_names(request.source, request.dest):
            return _copy_folder(ws, request)
    with ws.state.audited("copy", [request.source, request.dest], request.topic) as note, ws.locked(), \
            found_names(request.source, request.dest):
        outcome = _copy_folder(ws, request)
        note.change = outcome.change_id
        return outcome


def _copy_folder(ws: Workspace, request: FolderCopyRequest) -> FolderCopyOutcome:
    with locate(ws.confiner, request.source) as source:
        if source.kind == "missing":
            raise StringError("NOT_FOUND", f"File not found: {source.rel}", MISSING_HINT)
        if source.kind != "dir":
            raise StringError("INVALID_TARGET", f"Not a folder: {source.rel} is a {source.kind}",
                              "Nothing was changed; /cp copies a file.")
        with destination(ws, source, request.dest, "cp") as dest:
            if dest.rel == source.rel:
                raise StringError("INVALID_TARGET", f"Source and destination are the same: {source.rel}",
                                  "Nothing was changed; name a different destination.")
            if dest.rel.startswith(source.rel + "/"):
                raise StringError("INVALID_TARGET", f"Cannot copy a folder into itself: {source.rel} → {dest.rel}",
                                  "Nothing was changed; choose a destination outside the folder.")
            if dest.kind != "missing":
                raise StringError("CONFLICT", f"Destination exists: {dest.rel}; a folder is copied to a new path "
                                  "only", "Nothing was changed; name a path that does not exist yet.")
            made = parents(ws, dest, request.create_parents, "cp")
            found = walk(ws.confiner, source)
            if found.links:
                raise LinkInFolder(source.rel, found.links[0][0])
            src, dst = source.rel, dest.rel

            def mapped(path: str) -> str:
                target = dst + path[len(src):]
                check(ws.confiner, target.split("/"), target)
                return target

            targets = sorted((mapped(path), path) for path, _, _ in found.files)
            _check_count(ws, src, len(targets))
            tree = (*made, *(TreeOp(mapped(path), "dir", "make", mode) for path, mode in found.dirs))
            if request.plan:
                return FolderCopyOutcome(src, dst, tuple(t for t, _ in targets), found.size, None)
            changes: list[FileChange] = []
            for target, path in targets:
                data, mode, times = read_file(ws, source, path)
                check_size(ws.policy, target, data)
                changes.append(FileChange(target, data, "", mode & 0o777, times))
    cs = apply_locked(ws, changes, request.topic, "apply", None, tree, exact=True, keep_times=True)
    return FolderCopyOutcome(src, dst, tuple(t for t, _ in targets), sum(len(c.data or b"") for c in changes), cs)


def _check_count(ws: Workspace, rel: str, count: int) -> None:
    """More files than one change may touch: refused before any is read."""
    budget = ws.policy.changes.max_files
    if count > budget:
        raise StringError("BUDGET_EXCEEDED",
                          f"{shown_name(rel)} holds {count} files; a change may touch at most {budget}.",
                          f"Nothing was changed; copy smaller folders one at a time. {BUDGET_HINT}")
