"""In-place edits committed by group commit (groupcommit.py): the batch a leader thread commits for every writer of
its process that queued meanwhile.

Edits of one file are computed one after the other, each on the text the one before it left (`edit_text_file`), and
written as a chain: one change set each (its own previous bytes, attribution and undo), all recorded pending in one
journal transaction, made durable by one seal with the one temp file holding the newest bytes, renamed once, the
folder fsynced once, then each marked done. A crash before the rename leaves the file as it was and every change
set of the chain pending: recovery rolls them all back; after it, the newest bytes are in place and recovery rolls
the chain forward, newest first (changes.recover_all). An edit that fails (a conflict, a refusal) fails alone: the
next one is computed on the text before it. A batch of one edit is written exactly as it always was (apply_locked).
"""

from __future__ import annotations

import contextlib
import threading
from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError
from stringsh.workspace import changes
from stringsh.workspace.atomic import sha256
from stringsh.workspace.groupcommit import GroupCommit, Waiting
from stringsh.workspace.guards import Guard, WholeFile, changed_since, refuse_mask_writeback
from stringsh.workspace.journal import FileRow, Link
from stringsh.workspace.journalfile import JournalUnavailable, rolled_back
from stringsh.workspace.ops.apply import apply_locked, check_whole_file, refuse_policy_file
from stringsh.workspace.ops.guard import check_hardlink, check_size, keep_limit
from stringsh.workspace.ops.read import ReadRequest, TextFile, edit_text_file, read_text
from stringsh.workspace.textio import encode

if TYPE_CHECKING:
    from collections.abc import Callable

    from stringsh.workspace.engine import Workspace

_MADE = threading.Lock()


class Edit(NamedTuple):
    """One writer's in-place edit, as `inplace.rewrite` was asked for it."""

    path: str
    topic: str
    guard: Guard
    change: Callable[[TextFile], str]
    stale: Callable[[str], StringError] | None
    body_checked: bool


class Computed(NamedTuple):
    current: TextFile  # the text the edit was computed on
    text: str
    data: bytes
    link: Link  # its change set's attribution (its rows and previous bytes filled in by `apply_chain`)


class Rewritten(NamedTuple):
    """An in-place edit written (inplace.rewrite's outcome)."""

    current: TextFile  # the file as read
    text: str  # its new text
    change_id: int
    sha256: str  # of the bytes written


def commit_edit(ws: Workspace, edit: Edit) -> Rewritten:
    """Write `edit` as one change set, batched with the other writers of this process waiting meanwhile. A thread
    that holds the workspace lock already (a change made inside another operation) writes at once."""
    if ws.state.holds_lock():
        batch: list[Waiting[Edit]] = [Waiting(edit)]
        with ws.locked():
            _commit(ws, batch)
        if batch[0].error is not None:
            raise batch[0].error
        return batch[0].result  # type: ignore[return-value]
    with _MADE:
        group = ws.state.edit_group
        if group is None:
            group = ws.state.edit_group = GroupCommit(lambda batch: _commit(ws, batch), ws.locked)
    return group.run(edit)  # type: ignore[return-value]


def _commit(ws: Workspace, batch: list[Waiting[Edit]]) -> None:
    """Under the lock: the batch's edits file by file (in the order they queued), each file's as one chain."""
    files: dict[str, list[Waiting[Edit]]] = {}
    for waiting in batch:
        try:
            key = waiting.context.run(ws.relative, waiting.work.path)
        except StringError:
            key = f"\0{id(waiting)}"  # its own edit then says why (reading it fails the same way)
        files.setdefault(key, []).append(waiting)
    for edits in files.values():
        _commit_file(ws, edits)


def _commit_file(ws: Workspace, edits: list[Waiting[Edit]]) -> None:
    computed: list[tuple[Waiting[Edit], Computed]] = []
    current: TextFile | None = None
    for waiting in edits:
        try:
            made = waiting.context.run(_compute, ws, waiting.work, current)
        except BaseException as exc:  # this edit alone fails; the next is computed on the text before it
            waiting.error = exc
            continue
        computed.append((waiting, made))
        current = edit_text_file(made.current.rel, made.data, made.current.mtime_ns)
    if not computed:
        return
    try:
        if len(computed) == 1:
            waiting, made = computed[0]
            ids = [waiting.context.run(apply_locked, ws, [_file_change(waiting.work.path, made)],
                                       waiting.work.topic, "apply", None)]
        else:
            ids = apply_chain(ws, computed[0][0].work.path, computed[0][1].current.sha256,
                              [(made.data, made.link) for _, made in computed])
    except BaseException as exc:
        for waiting, _ in computed:
            waiting.error = exc
        return
    for (waiting, made), cs in zip(computed, ids, strict=True):
        waiting.result = Rewritten(made.current, made.text, cs, sha256(made.data))


def _file_change(path: str, made: Computed) -> object:
    from stringsh.workspace.models import FileChange

    return FileChange(path, made.data, made.current.sha256)


def _compute(ws: Workspace, edit: Edit, current: TextFile | None) -> Computed:
    """In the writer's own request context: the edit on `current` (None: the file as it is), checked and encoded."""
    if current is None:
        current = read_text(ws, ReadRequest(edit.path, edit.topic, legacy="edit"))  # Latin-1 kept
    if isinstance(edit.guard, WholeFile) and current.sha256 != edit.guard.sha256:
        raise (edit.stale or changed_since)(current.rel)
    text = edit.change(current)
    if not edit.body_checked:
        refuse_mask_writeback(ws, current.rel, current.text, text)
    data = encode(text, current.encoding, current.bom, current.rel)
    check_size(ws.policy, edit.path, data)
    check_whole_file(ws, current.rel, data)
    link = Link(edit.topic, ws.frontend, ws.journal.client, ws.command_line(), [], {})
    return Computed(current, text, data, link)


def apply_chain(ws: Workspace, path: str, expected: str, steps: list[tuple[bytes, Link]]) -> list[int]:
    """Write successive new contents of one file as a chain of change sets (see the module docstring); the caller
    holds the lock and has checked each content. `expected`: the hash of the bytes the first was computed on."""
    ws.state.workspace_folder()
    plan = changes.plan(ws.confiner, 0, path, steps[-1][0], expected, None, keep_limit(ws.policy))
    try:
        if plan.res.st is not None:
            check_hardlink(ws.policy, plan.res, plan.res.st)
        refuse_policy_file(ws, plan.res.rel)
        links: list[Link] = []
        prev, prev_sha = plan.prev, plan.prev_sha
        for data, link in steps:
            sha = sha256(data)
            row = FileRow(0, plan.res.rel, prev_sha, sha, plan.prev_mode, plan.new_mode)
            blobs = {prev_sha: prev} if prev is not None and prev_sha else {}
            links.append(link._replace(rows=[row], blobs=blobs))
            prev, prev_sha = data, sha
        journal = ws.journal
        ids = journal.begin_chain(links)
        last = ids[-1]
        try:
            changes.execute(last, [plan], ws.state.fsync_pool, lambda: journal.seal(last, ws.state.fsync_pool))
        except BaseException:
            for cs in reversed(ids):
                rolled_back(journal, cs)
            raise
        for cs in ids:  # pending with the newest bytes in place until marked: recovery rolls the rest forward
            with contextlib.suppress(JournalUnavailable):
                journal.finish(cs, "done", None, ws.policy.journal if cs == last else None)
        return ids
    finally:
        changes.close_plans([plan])
