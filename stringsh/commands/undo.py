"""/undo: revert this client's newest change in the topic that is not undone yet; `/undo --skip` passes over one
that cannot be undone. Other clients' changes (processes, daemons, earlier runs) stay in the journal untouched."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.documents.diffreply import with_diff
from stringsh.errors import StringError
from stringsh.protocol.response import Result
from stringsh.workspace.models import RevertedFile, RevertOutcome, SkippedChange
from stringsh.workspace.seen import mark_seen

if TYPE_CHECKING:
    from stringsh.workspace.journal import TreeOp

USAGE = "Usage: /undo [--skip]"


def describe(file: RevertedFile, outcome: RevertOutcome) -> str:
    if file.action == "deleted":
        text = f"deleted {file.rel} (was newly created)"
    elif file.action == "already_gone":
        text = f"{file.rel} is already gone (change {outcome.reverted_id} created it), nothing written"
    elif file.action == "already":
        text = (f"{file.rel} already holds its content from before change {outcome.reverted_id} "
                f"({file.lines} lines), nothing written")
    else:
        text = f"{file.action} {file.rel} ({file.lines} lines)"
    if file.folders:
        text += f", removed its new empty folder{'s' if len(file.folders) > 1 else ''} {', '.join(file.folders)}"
    return text


def describe_skip(skipped: SkippedChange) -> str:
    paths = ", ".join(skipped.paths[:3]) + (f" and {len(skipped.paths) - 3} more" if len(skipped.paths) > 3 else "")
    after = ("the next /undo takes back change " f"{skipped.next_id}." if skipped.next_id is not None
             else "nothing older is left to undo.")
    return f"Undo: skipped change {skipped.change_id} ({paths}), left as it is; {after}"


@handler("undo")
def undo(ctx: Context) -> Result:
    workspace = ctx.dispatcher.workspace
    if ctx.args == ["--skip"]:
        return Result(describe_skip(workspace.undo_skip(ctx.session.topic)))
    if ctx.args:
        unknown = next((a for a in ctx.args if a.startswith("-") and a != "--skip"), None)
        if unknown is not None:
            raise StringError("INVALID_PAYLOAD", f"Unknown flag for /undo: {unknown}",
                              f"{USAGE}. Repeat /undo to go further back.")
        raise StringError("INVALID_PAYLOAD", USAGE, "/undo takes no other arguments; repeat it to go further back.")
    outcome = workspace.undo(ctx.session.topic)
    for file in outcome.files:
        if file.action in ("deleted", "already_gone"):
            ctx.session.seen.pop(file.rel, None)
        else:
            mark_seen(ctx.session.seen, workspace, file.rel)
    parts = [describe_tree(op) for op in outcome.tree if op.action == "make"]  # folders first, then their files
    parts += [describe(file, outcome) for file in outcome.files]
    parts += [describe_tree(op) for op in outcome.tree if op.action == "remove"]
    if len(parts) > MAX_PARTS:
        parts = [*parts[:MAX_PARTS], f"and {len(parts) - MAX_PARTS} more"]
    return with_diff(ctx, Result("Undo: " + "; ".join(parts)), outcome.change_id, undo_note=False)


#: An undo of a big /rm -r or /mv names this many files and folders, then how many more.
MAX_PARTS = 20


def describe_tree(op: TreeOp) -> str:
    """A folder or symlink the undo put back or removed (a /mkdir, /mv or /rm undone)."""
    if op.kind == "link":
        return f"put back link {op.path} → {op.target}" if op.action == "make" else f"removed link {op.path}"
    return f"put back folder {op.path}" if op.action == "make" else f"removed folder {op.path}"
