"""/changes: the journal's recent change sets, newest first, whichever command, topic or front end made them;
`/changes ID` shows one as a unified diff (documents/changeview.py)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.documents.revertreply import parse_id
from stringsh.errors import Step, StringError, hint
from stringsh.escapes import shown_name
from stringsh.protocol.response import Result

if TYPE_CHECKING:
    from stringsh.workspace import ChangeRow, Workspace

USAGE = "Usage: /changes [-n N] | /changes ID"
DEFAULT_COUNT = 20
MAX_COUNT = 1000
#: A listing row names this many files of a change set, then how many more.
MAX_FILES = 3
#: A command line longer than this is cut in the listing (`/changes ID` shows it whole).
COMMAND_WIDTH = 40


def when(row: ChangeRow) -> str:
    """Local time, to the second."""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(row.time))


#: A change set whose journal rows name a path outside the roots: the journal was edited (journalcheck.py).
TAMPERED = "(TAMPERED: the journal names a path outside the roots; stringsh audit verify reports it)"


def root_ids(ws: Workspace) -> set[str]:
    return {ident for ident, _, _ in ws.confiner.root_list()}


def status(row: ChangeRow, tampered: bool = False) -> str:
    """What became of a change set, or what it was: `(reverted by 4)`, `(undoes 2)`, `(reverts 2)`, ... or "";
    TAMPERED, never a rollback, when its rows name a path outside the roots."""
    if tampered:
        return TAMPERED
    if row.state == "rolled_back":
        return "(rolled back)"
    if row.state != "done":
        return f"({row.state})"
    parts = []
    if row.kind == "revert":
        parts.append(f"undoes {row.reverts}")
    elif row.reverts is not None:
        parts.append(f"reverts {row.reverts}")
    if row.reverted_by is not None:
        parts.append(f"reverted by {row.reverted_by}")
    return f"({', '.join(parts)})" if parts else ""


def command_of(row: ChangeRow) -> str:
    """The command line that made it; `-` for a library call or a change an older version recorded."""
    return row.command or "-"


def files_summary(ws: Workspace, row: ChangeRow) -> str:
    from stringsh.documents.changeview import counts

    journal = ws.journal
    tree = journal.tree(row.id)
    done = {"make": "made", "remove": "removed"}
    parts = [f"{shown_name(op.path)}/ {done[op.action]}" if op.kind == "dir" else
             f"link {shown_name(op.path)} {done[op.action]}" for op in tree if op.action == "make" or op.kind == "link"]
    rows = journal.files(row.id)
    parts += [f"{shown_name(f.path)} {counts(ws, f)}" for f in rows[:MAX_FILES]]
    parts += [f"{shown_name(op.path)}/ removed" for op in tree if op.action == "remove" and op.kind == "dir"]
    if len(rows) > MAX_FILES:
        parts.append(f"and {len(rows) - MAX_FILES} more files")
    return ", ".join(parts) if parts else "(no files)"


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def listing(ws: Workspace, limit: int) -> Result:
    from stringsh.workspace import stray_paths

    rows = ws.history(limit) if ws.state.has_journal() else []
    if not rows:
        return Result("No changes in the journal yet.")
    depth = ws.journal_depth()
    kept = depth.changes if depth is not None else len(rows)
    ids = root_ids(ws)
    with ws.state.thread_lock:  # the journal's one connection: threads take turns
        lines = [(str(row.id), when(row), row.topic, _cut(command_of(row), COMMAND_WIDTH),
                  f"{files_summary(ws, row)} {status(row, bool(stray_paths(ws.journal, row.id, ids)))}".rstrip())
                 for row in rows]
    widths = [max(len(line[k]) for line in lines) for k in range(4)]
    body = [f"{i:>{widths[0]}}  {t}  {topic:<{widths[2]}}  {cmd:<{widths[3]}}  {what}"
            for i, t, topic, cmd, what in lines]
    shown = f"the newest {len(rows)} of {kept}" if len(rows) < kept else f"all {kept}"
    head = f"Changes, newest first ({shown} kept; /changes ID shows one, /revert ID reverts it):"
    return Result(head, "\n".join(body))


def show(ws: Workspace, change_id: int) -> Result:
    """One change set: a heading line, then its unified diff."""
    from stringsh.documents.changeview import change_text
    from stringsh.workspace import pruned_error, stray_paths

    with ws.state.thread_lock:
        row = ws.journal.get(change_id) if ws.state.has_journal() else None
        if row is None:
            if ws.state.has_journal() and ws.journal.ever_made(change_id):
                raise pruned_error(ws, f"Change {change_id} was pruned from the journal")
            raise StringError("NOT_FOUND", f"No change {change_id} in the journal.",
                              hint(Step("changes"), " lists the changes kept."))
        strays = stray_paths(ws.journal, change_id, root_ids(ws))
        text = [f"{path}: outside the roots, never written" for path in strays] or change_text(ws, change_id)
    tail = status(row, bool(strays))
    head = f"Change {row.id}, {when(row)}, topic {row.topic}: {command_of(row)}{' ' + tail if tail else ''}"
    return Result(head, "\n".join(text) if text else "(no files)")


@handler("changes")
def changes(ctx: Context) -> Result:
    args = ctx.args
    workspace = ctx.dispatcher.workspace
    if not args:
        return listing(workspace, DEFAULT_COUNT)
    if args[0] == "-n":
        if len(args) != 2:
            raise StringError("INVALID_PAYLOAD", USAGE, "-n takes one number: /changes -n 50")
        if not args[1].isdigit() or not 1 <= int(args[1]) <= MAX_COUNT:
            raise StringError("INVALID_PAYLOAD", f"Not a count for -n: {args[1]}",
                              f"Give a whole number from 1 to {MAX_COUNT}: /changes -n 50")
        return listing(workspace, int(args[1]))
    if len(args) > 1 or args[0].startswith("-"):
        unknown = next((a for a in args if a.startswith("-")), None)
        raise StringError("INVALID_PAYLOAD", f"Unknown flag for /changes: {unknown}" if unknown else USAGE,
                          f"{USAGE}" if unknown else "/changes shows one change at a time.")
    return show(workspace, parse_id(args[0]))
