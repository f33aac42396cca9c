"""apply: a change set written all or nothing, journalled first so it can be reverted and crash-recovered.

`apply_locked` is the core every writer (write, append, revert) shares once it holds the workspace lock.
"""

from __future__ import annotations

import contextlib
import functools
from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import ALLOW_LIST_HINT, POLICY_FILE_HINT, StringError
from stringsh.escapes import shown_name
from stringsh.workspace import changes
from stringsh.workspace import tree as treeops
from stringsh.workspace.globs import GlobSet
from stringsh.workspace.guards import refuse_mask_in_hunks, refuse_mask_writeback
from stringsh.workspace.hunks import materialise
from stringsh.workspace.journalfile import JournalUnavailable, rolled_back
from stringsh.workspace.models import ChangeSetId, FileChange
from stringsh.workspace.ops.guard import check_hardlink, check_size, keep_limit, require
from stringsh.workspace.patches import Patch, check_patches

if TYPE_CHECKING:
    from concurrent.futures import Future

    from stringsh.workspace.engine import Workspace
    from stringsh.workspace.journalrows import TreeOp

#: New contents this long or longer are hashed ahead on a worker thread (~0.6 ms a MiB, overlapping the checks, the
#: lock and the read of the bytes they replace); below it a thread hand-off costs more than it saves.
HASH_AHEAD = 256 * 1024


class ApplyRequest(NamedTuple):
    files: tuple[FileChange, ...]
    topic: str = "main"
    patches: tuple[Patch, ...] = ()
    #: "edit" for a block `/edit` (part of an existing file rewritten): the `edit` permission is needed too.
    op: str = "write"


def apply(ws: Workspace, request: ApplyRequest) -> ChangeSetId:
    """Apply every file of the change set or none; returns the change id for `revert`.

    Patches (docs/change-sets.md) are checked for form, then the policy (permissions, the change allow- and deny
    lists, the file and line budgets) is checked on the paths and line counts as asked, before any file is read;
    then, under the lock, each patch is applied to the file's bytes exactly (hunks.py) and the whole set goes
    through `apply_locked` like any other change: one journal entry, one id, all files or none."""
    permissions = ws.policy.permissions
    if request.op == "edit":  # the flag only: a read-only root gets the write permission's own refusal below
        require(ws.policy, permissions.edit, "edit")
    files = list(request.files)
    patches = list(request.patches)
    if not files and not patches:
        raise StringError("INVALID_PAYLOAD", "Empty change set.")
    require(ws.policy, permissions.write, "write", mutating=True)
    if patches:
        require(ws.policy, permissions.patch, "patch", mutating=True)
        check_patches(patches)
        for patch in patches:  # removed lines are the file's own text: none may become a mask over a secret
            refuse_mask_in_hunks(ws, ws.relative(patch.path), patch.hunks)
    if any(f.data is None for f in files) or any(p.action == "delete" for p in patches):
        require(ws.policy, permissions.delete, "delete", mutating=True)
    ahead = hash_ahead(ws, files)  # from here on, beside the line count, the checks and the wait for the lock
    loc = sum(count_loc(f.data) for f in files) + sum(p.added + p.removed for p in patches)
    count = len(files) + len(patches)
    _check_files(ws, count, loc)
    for f in files:
        if f.data is not None:
            check_size(ws.policy, f.path, f.data)
    _check_paths(ws, [ws.relative(f.path) for f in files] + [ws.relative(p.path) for p in patches])
    _check_loc(ws, count, loc)
    paths = [f.path for f in files] + [p.path for p in patches]
    with ws.state.audited("apply", paths, request.topic) as note, ws.locked():
        limit = keep_limit(ws.policy)
        materialised = [materialise(ws, patch, limit) for patch in patches]
        made = [change for change, _ in materialised]
        known = {len(files) + k: (read,) for k, (_, read) in enumerate(materialised) if read is not None}
        for change in made:
            if change.data is not None:
                check_size(ws.policy, change.path, change.data)
        for f in files:  # a whole file's new bytes never put a mask where the file, as it is now, holds a secret
            if f.data is not None:
                _refuse_mask_over(ws, f.path, f.data)
        note.change = apply_locked(ws, files + made, request.topic, "apply", None, loc=loc, known=known, ahead=ahead)
        return ChangeSetId(note.change)


def _refuse_mask_over(ws: Workspace, path: str, data: bytes) -> None:
    """`refuse_mask_writeback` for a whole-file change: decoded only when the new bytes may hold the mask."""
    mask = ws.policy.secrets.replacement
    masks = bool(mask) and mask.encode() in data
    # \\x: an escape; looked for only where a backslash is (one memchr: a two-byte search costs ~1 ms a MiB)
    escape = b"\\" in data and b"\\x" in data
    if not masks and not escape and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return
    from stringsh.workspace.textio import decode_or_legacy

    res = ws.confiner.resolve(path)
    try:
        old, _mode = changes.current_bytes(res)
    finally:
        res.close()
    if old is None:
        return
    try:
        current, new = decode_or_legacy(old, res.rel)[0], decode_or_legacy(data, res.rel)[0]
    except StringError:  # not text: no mask can stand for a secret in it
        return
    refuse_mask_writeback(ws, res.rel, current, new)


def count_loc(data: bytes | None) -> int:
    """The lines a whole-file change counts against `max_loc`: every line of its new content."""
    return data.count(b"\n") + 1 if data else 0


def apply_locked(ws: Workspace, files: list[FileChange], topic: str, kind: str, reverts: int | None,
                 tree: tuple[TreeOp, ...] = (), *, exact: bool = False, keep_times: bool = False,
                 loc: int | None = None, known: dict[int, tuple[changes.Digest, ...]] | None = None,
                 ahead: dict[int, Future[str]] | None = None) -> int:
    """Plan, check, journal and execute; the caller holds the lock and has checked the permission.

    `tree`: folders and symlinks made before the files are written and removed after (workspace/tree.py).
    `exact`: the paths are real paths found by a walk (a move, a delete): one that now leads elsewhere through a
    symlink swapped in since is a CONFLICT, never the file at the other end.
    `keep_times`: journal the times of the files replaced or deleted, so their undo gives them back (changes.py).
    `loc`: the lines the change counts against the budget when not every line of its new content (a patch counts
    the lines it adds and removes).
    `known`: per file (its index in `files`), bytes whose digests the caller has already (changes.learn): a patch's
    file as it was read to apply the hunks, a revert's kept bytes, checked against their hash when read back.
    `ahead`: the new contents' hashes already started (`hash_ahead`); else big ones start here."""
    known = known or {}
    ws.state.workspace_folder()  # refuses a workspace whose `.stringsh` is a planted link or file
    plans: list[changes.Plan] = []
    limit = keep_limit(ws.policy)
    if ahead is None:
        ahead = hash_ahead(ws, files, known)
    try:
        seen: set[str] = set()
        for idx, f in enumerate(files):
            p = changes.plan(ws.confiner, idx, f.path, f.data, f.expected_prev_sha256, f.mode, limit, f.times,
                             keep_times, known.get(idx, ()))
            plans.append(p)
            if idx in ahead and "new_sha" not in p.__dict__:
                p.__dict__["new_sha"] = ahead[idx].result()  # Plan.new_sha is a cached property
            if p.res.st is not None:  # its previous bytes would be journalled, and /undo would restore them
                check_hardlink(ws.policy, p.res, p.res.st)
            refuse_policy_file(ws, p.res.rel)
            if exact and p.res.rel != f.path:
                raise StringError("CONFLICT",
                                  f"{shown_name(f.path)} changed into a symbolic link meanwhile; nothing was changed.")
            if reverts is not None and p.res.rel != f.path:  # a revert names the path it wrote; a link now
                raise StringError("CONFLICT", f"{shown_name(f.path)} is now a symbolic link; nothing was written.")
            if p.res.rel in seen:
                raise StringError("INVALID_PAYLOAD", f"The change set names {shown_name(p.res.rel)} twice.")
            seen.add(p.res.rel)
        if kind == "apply":
            _check_budget(ws, plans, tree, loc)
        blobs = {p.prev_sha: p.prev for p in plans if p.prev is not None and p.prev_sha}
        journal = ws.journal
        rows = [p.row() for p in plans]
        cs = journal.begin(topic, ws.frontend, kind, reverts, rows, blobs, tree, command=ws.command_line())
        if tree:
            _execute_tree(ws, cs, plans, tree)
        else:
            try:
                changes.execute(cs, plans, ws.state.fsync_pool, lambda: journal.seal(cs, ws.state.fsync_pool))
            except BaseException:
                rolled_back(journal, cs)
                raise
        for p, row in zip(plans, rows, strict=True):
            if p.existed:  # a folder planned as new was there after all: undo must leave it
                journal.set_new_dirs(cs, p.idx, tuple(d for d in row.new_dirs if d not in p.existed))
        # then prunes to the keep policy (keep.py); a journal whose disk filled meanwhile cannot take the mark:
        # pending with every file new, the next change's recovery marks it done
        with contextlib.suppress(JournalUnavailable):
            journal.finish(cs, "done", reverts, ws.policy.journal)
        return cs
    finally:
        changes.close_plans(plans)


def hash_ahead(ws: Workspace, files: list[FileChange],
               known: dict[int, tuple[changes.Digest, ...]] | None = None) -> dict[int, Future[str]]:
    """Big new contents hashed on a worker (hashlib lets go of the GIL) while this thread goes on: the checks, the
    wait for the lock, the read and hash of the bytes they replace. By index in `files`; none whose digest is known."""
    known = known or {}
    return {idx: ws.state.fsync_pool.hash_ahead(f.data) for idx, f in enumerate(files)
            if f.data is not None and len(f.data) >= HASH_AHEAD
            and not any(f.data is data for data, _ in known.get(idx, ()))}


def refuse_policy_file(ws: Workspace, rel: str) -> None:
    """The workspace's own policy file is never changed through stringsh."""
    if rel in ws.policy_files:
        raise StringError("NOT_PERMITTED",
                          f"{shown_name(rel)} is the workspace's policy and cannot be changed through stringsh",
                          POLICY_FILE_HINT)


def check_whole_file(ws: Workspace, rel: str, data: bytes) -> None:
    """One file's new content against the change allow- and deny lists and the line budget, as `apply_locked` holds
    an apply (a change of a group commit's chain is held to it alone: ops/grouped.py)."""
    _check_paths(ws, [rel])
    _check_loc(ws, 1, count_loc(data))


def _execute_tree(ws: Workspace, cs: int, plans: list[changes.Plan], tree: tuple[TreeOp, ...]) -> None:
    """Folders and links first (the journal record made durable before any of them), then the files, then the
    removals; a failure before the removals takes back the folders and links made."""
    journal = ws.journal
    journal.seal(cs, ws.state.fsync_pool)
    made: list[TreeOp] = []
    existed: list[TreeOp] = []
    try:
        for op in tree:
            if op.action == "make":
                (made if treeops.make(ws.confiner, op) else existed).append(op)
        changes.execute(cs, plans, ws.state.fsync_pool)
    except BaseException:
        for op in reversed(made):
            treeops.remove(ws.confiner, op)
        rolled_back(journal, cs)
        raise
    stayed = treeops.remove_all(ws.confiner, tree)
    if existed or stayed:  # not made, or not removed, by this change: undo must leave them as they are
        journal.set_tree(cs, tuple(op for op in tree if op not in existed and op not in stayed))


def budget_status(ws: Workspace, files: int, loc: int) -> str:
    """What a budget refusal says besides its reason: what the change asked for against what the policy allows."""
    budget = ws.policy.changes
    return (f"this change set: {files} file{'s' if files != 1 else ''}, {loc} line{'s' if loc != 1 else ''}; "
            f"allowed: {budget.max_files} files, {budget.max_loc} lines")


BUDGET_HINT = "Split the change into smaller change sets, or raise [changes] max_files / max_loc in the policy."


def _check_files(ws: Workspace, files: int, loc: int) -> None:
    budget = ws.policy.changes
    if files > budget.max_files:
        raise StringError("BUDGET_EXCEEDED", f"Too many files: {files} > {budget.max_files} "
                          f"({budget_status(ws, files, loc)})", BUDGET_HINT)


def _check_loc(ws: Workspace, files: int, loc: int) -> None:
    budget = ws.policy.changes
    if loc > budget.max_loc:
        raise StringError("BUDGET_EXCEEDED", f"Too many lines changed: {loc} > {budget.max_loc} "
                          f"({budget_status(ws, files, loc)})", BUDGET_HINT)


@functools.lru_cache(maxsize=16)
def _globs(patterns: tuple[str, ...]) -> GlobSet:
    """Compiled once per pattern list, not twice per change set (~60 us each)."""
    return GlobSet(patterns)


def _check_paths(ws: Workspace, rels: list[str]) -> None:
    """Each path on the policy's change allow-list and off its deny list (globs.py semantics)."""
    budget = ws.policy.changes
    allowed = _globs(tuple(budget.allow_globs))  # the same glob semantics as the secret lists (globs.py)
    denied = _globs(tuple(budget.deny_globs)) if budget.deny_globs else None
    for rel in rels:
        if not allowed.covers(rel):
            raise StringError("NOT_PERMITTED", f"Path is not on the policy's change allow-list: {shown_name(rel)}",
                              ALLOW_LIST_HINT)
        if denied is not None and denied.covers(rel):
            raise StringError("NOT_PERMITTED", f"Path is on the policy's change deny list: {shown_name(rel)}",
                              "The policy's [changes] deny_globs keep changes away from it; nothing was written.")


def _check_budget(ws: Workspace, plans: list[changes.Plan], tree: tuple[TreeOp, ...] = (),
                  loc: int | None = None) -> None:
    """The policy's change allow- and deny lists and line budget, checked before anything is recorded or written. A
    folder or link the change makes or removes is on the list itself, or (a folder) holds a file of the change that
    is. `loc`: the lines counted, when not every line of the new content."""
    _check_paths(ws, [p.res.rel for p in plans])
    for op in tree:
        holds = op.kind == "dir" and any(p.res.rel.startswith(op.path + "/") for p in plans)
        if not holds:
            _check_paths(ws, [op.path])
    _check_loc(ws, len(plans), sum(count_loc(p.data) for p in plans) if loc is None else loc)
