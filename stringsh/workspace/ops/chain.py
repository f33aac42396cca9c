"""A chain of change sets on one file (ops/grouped.py): successive new contents, each change set with its own
previous bytes and attribution, written now (`apply_chain`) or queued for the next lock holder (`queue_chain`,
workspace/queued.py)."""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING

from stringsh.workspace import atomic, changes
from stringsh.workspace.atomic import sha256
from stringsh.workspace.journalfile import JournalUnavailable, rolled_back
from stringsh.workspace.journalrows import FileRow, Link
from stringsh.workspace.ops.apply import refuse_policy_file
from stringsh.workspace.ops.guard import check_hardlink, keep_limit

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace


def _plan(ws: Workspace, path: str, data: bytes, expected: str | None) -> changes.Plan:
    """The file the chain ends with `data` in, checked as apply_locked checks a file (the caller closes it)."""
    ws.state.workspace_folder()
    plan = changes.plan(ws.confiner, 0, path, data, expected, None, keep_limit(ws.policy))
    try:
        if plan.res.st is not None:
            check_hardlink(ws.policy, plan.res, plan.res.st)
        refuse_policy_file(ws, plan.res.rel)
    except BaseException:
        changes.close_plans([plan])
        raise
    return plan


def _links(plan: changes.Plan, prev: bytes | None, prev_sha: str | None, steps: list[tuple[bytes, Link]]) -> list[Link]:
    """Each step's change set: from the bytes the step before left (the first: `prev`) to its own."""
    links: list[Link] = []
    for data, link in steps:
        sha = sha256(data)
        row = FileRow(0, plan.res.rel, prev_sha, sha, plan.prev_mode, plan.new_mode)
        links.append(link._replace(rows=[row], blobs={prev_sha: prev} if prev is not None and prev_sha else {}))
        prev, prev_sha = data, sha
    return links


def apply_chain(ws: Workspace, path: str, expected: str, steps: list[tuple[bytes, Link]]) -> list[int]:
    """Write successive new contents of one file as a chain of change sets (see the module docstring); the caller
    holds the lock and has checked each content. `expected`: the hash of the bytes the first was computed on."""
    plan = _plan(ws, path, steps[-1][0], expected)
    try:
        journal = ws.journal
        ids = journal.begin_chain(_links(plan, plan.prev, plan.prev_sha, steps))
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


def queue_chain(ws: Workspace, path: str, expected: str, base: bytes | None,
                steps: list[tuple[bytes, Link]]) -> list[int]:
    """Record the chain `queued` and write its newest bytes to its temp file, neither synced (queued.py): the next
    lock holder makes them durable and puts them in place. `base`: the queued bytes of an earlier chain the first
    step was computed on (hash `expected`); None: the file's own, which must still hash to `expected`."""
    plan = _plan(ws, path, steps[-1][0], None if base is not None else expected)
    try:
        journal = ws.journal
        prev, prev_sha = (base, expected) if base is not None else (plan.prev, plan.prev_sha)
        ids = journal.begin_chain(_links(plan, prev, prev_sha, steps), "queued")
        try:
            os.close(atomic.stage_open(plan.res.parent_fd, atomic.temp_name(ids[-1], 0), steps[-1][0],
                                       plan.new_mode or atomic.DEFAULT_MODE))
        except BaseException:
            for cs in reversed(ids):
                rolled_back(journal, cs)
            raise
        return ids
    finally:
        changes.close_plans([plan])
