"""In-place edits committed by group commit (groupcommit.py): the batch a leader thread commits for every writer of
its process that queued meanwhile.

Edits of one file are computed one after the other, each on the text the one before it left (`edit_text_file`), and
written as a chain: one change set each (its own previous bytes, attribution and undo), all recorded pending in one
journal transaction, made durable by one seal with the one temp file holding the newest bytes, renamed once, the
folder fsynced once, then each marked done. A crash before the rename leaves the file as it was and every change
set of the chain pending: recovery rolls them all back; after it, the newest bytes are in place and recovery rolls
the chain forward, newest first (changes.recover_all). An edit that fails (a conflict, a refusal) fails alone: the
next one is computed on the text before it. A batch of one edit is written exactly as it always was (apply_locked).

When another process waits for the lock, the chain is queued instead (workspace/queued.py): recorded and staged,
not synced, and put in place by the next lock holder; the batch's writers are answered once it is (`_settle`).
"""

from __future__ import annotations

import threading
from operator import attrgetter
from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError
from stringsh.escapes import shown_name
from stringsh.workspace.atomic import sha256
from stringsh.workspace.blobfiles import FILE_BLOB
from stringsh.workspace.groupcommit import GroupCommit, Waiting
from stringsh.workspace.guards import Guard, WholeFile, changed_since, refuse_mask_writeback
from stringsh.workspace.journalrows import Link
from stringsh.workspace.models import FileChange
from stringsh.workspace.ops.apply import apply_locked, check_whole_file
from stringsh.workspace.ops.chain import apply_chain, queue_chain
from stringsh.workspace.ops.guard import check_size
from stringsh.workspace.ops.read import ReadRequest, TextFile, edit_text_file, read_text
from stringsh.workspace.queued import intact, queued_bytes
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
    link: Link  # its change set's attribution (its rows and previous bytes filled in by ops/chain.py)
    base: bytes | None = None  # the queued bytes it was computed on (workspace/queued.py); None: the file's


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
            _commit(ws, batch, may_queue=False)
        if batch[0].error is not None:
            raise batch[0].error
        return batch[0].result  # type: ignore[return-value]
    with _MADE:
        group = ws.state.edit_group
        if group is None:
            group = ws.state.edit_group = GroupCommit(lambda batch: _commit(ws, batch),
                                                      lambda: ws.state.locked(chain=True), attrgetter("topic"))
    return group.run(edit)  # type: ignore[return-value]


def _commit(ws: Workspace, batch: list[Waiting[Edit]], *, may_queue: bool = True) -> Callable[[], None] | None:
    """Under the lock: the batch's edits file by file (in the order they queued), each file's as one chain, written
    now, or queued when other processes wait for the lock (workspace/queued.py; then the returned step, run once
    the lock is let go, waits for them to be put in place)."""
    queue = may_queue and ws.state.others_waiting() and ws.state.has_journal() and intact(ws.journal, ws.confiner)
    if not queue:
        ws.state.flush_queued()  # what taking the lock does for any other writer
    files: dict[str, list[Waiting[Edit]]] = {}
    for waiting in batch:
        try:
            key = waiting.context.run(ws.relative, waiting.work.path)
        except StringError:
            key = f"\0{id(waiting)}"  # its own edit then says why (reading it fails the same way)
        files.setdefault(key, []).append(waiting)
    queued: list[tuple[Waiting[Edit], Computed, int]] = []
    for edits in files.values():
        queued += _commit_file(ws, edits, queue)
    return (lambda: _settle(ws, queued)) if queued else None


def _commit_file(ws: Workspace, edits: list[Waiting[Edit]],
                 queue: bool) -> list[tuple[Waiting[Edit], Computed, int]]:
    """One file's edits as a chain; returns those queued (with their change ids)."""
    computed: list[tuple[Waiting[Edit], Computed]] = []
    current: TextFile | None = None
    for waiting in edits:
        try:
            made = waiting.context.run(_compute, ws, waiting.work, current, queue)
        except BaseException as exc:  # this edit alone fails; the next is computed on the text before it
            waiting.error = exc
            continue
        computed.append((waiting, made))
        current = edit_text_file(made.current.rel, made.data, made.current.mtime_ns)
    if not computed:
        return []
    first = computed[0][1]
    steps = [(made.data, made.link) for _, made in computed]
    try:
        if queue and max(first.current.size, *(len(data) for data, _ in steps)) < FILE_BLOB:
            ids = queue_chain(ws, computed[0][0].work.path, first.current.sha256, first.base, steps)
            return [(waiting, made, cs) for (waiting, made), cs in zip(computed, ids, strict=True)]
        if first.base is not None:  # computed on queued bytes: put them in place first (blob files are not queued)
            ws.state.flush_queued()
        if len(computed) == 1:
            waiting, made = computed[0]
            change = FileChange(waiting.work.path, made.data, first.current.sha256)
            ids = [waiting.context.run(apply_locked, ws, [change], waiting.work.topic, "apply", None)]
        else:
            ids = apply_chain(ws, computed[0][0].work.path, first.current.sha256, steps)
    except BaseException as exc:
        for waiting, _ in computed:
            waiting.error = exc
        return []
    for (waiting, made), cs in zip(computed, ids, strict=True):
        waiting.result = Rewritten(made.current, made.text, cs, sha256(made.data))
    return []


def _settle(ws: Workspace, queued: list[tuple[Waiting[Edit], Computed, int]]) -> None:
    """Lock let go: wait until the queued change sets are put in place (taking the lock does it, unless another
    holder did first); each is done, or rolled back when its chain could not be (a CONFLICT, nothing written)."""
    def states() -> dict[int, str | None]:
        return {cs: (row.state if (row := ws.journal.get(cs)) else None) for _, _, cs in queued}

    try:
        with ws.state.thread_lock:  # another process may have put them in place already: then no second lock
            now = states()
        if "queued" in now.values():  # wait for the holder now to let go (it puts them in place unless it queued)
            ws.state.await_release()
            with ws.state.thread_lock:
                now = states()
        if "queued" in now.values():
            with ws.state.locked(settle=True):
                now = states()
    except BaseException as exc:
        for waiting, _, _ in queued:
            waiting.error = exc
        return
    for waiting, made, cs in queued:
        if now[cs] == "done":
            waiting.result = Rewritten(made.current, made.text, cs, sha256(made.data))
        else:
            shown = shown_name(made.current.rel)
            waiting.error = StringError("CONFLICT", f"{shown} changed since it was read; nothing was written.",
                                        f"Read {shown} again and redo the change.")


def _compute(ws: Workspace, edit: Edit, current: TextFile | None, queue: bool) -> Computed:
    """In the writer's own request context: the edit on `current` (None: the file as it is, or as the newest queued
    change leaves it when `queue`), checked and encoded."""
    base = None
    if current is None:
        current = read_text(ws, ReadRequest(edit.path, edit.topic, legacy="edit"))  # Latin-1 kept
        if queue:
            _, base = queued_bytes(ws.journal, ws.confiner, current.rel)
            if base is not None:
                current = edit_text_file(current.rel, base, current.mtime_ns)
    if isinstance(edit.guard, WholeFile) and current.sha256 != edit.guard.sha256:
        raise (edit.stale or changed_since)(current.rel)
    text = edit.change(current)
    if not edit.body_checked:
        refuse_mask_writeback(ws, current.rel, current.text, text)
    data = encode(text, current.encoding, current.bom, current.rel)
    check_size(ws.policy, edit.path, data)
    check_whole_file(ws, current.rel, data)
    link = Link(edit.topic, ws.frontend, ws.journal.client, ws.command_line(), [], {})
    return Computed(current, text, data, link, base)
