"""/undo: revert this topic's newest change that is not undone yet; multi-level, persisted across restarts."""

from __future__ import annotations

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.documents.diffreply import with_diff
from stringsh.errors import StringError
from stringsh.protocol.response import Result
from stringsh.workspace.models import RevertedFile
from stringsh.workspace.seen import mark_seen


def describe(file: RevertedFile) -> str:
    if file.action == "deleted":
        return f"deleted {file.rel} (was newly created)"
    return f"{file.action} {file.rel} ({file.lines} lines)"


@handler("undo")
def undo(ctx: Context) -> Result:
    if ctx.args:
        raise StringError("INVALID_PAYLOAD", "Usage: /undo", "/undo takes no arguments; repeat it to go further back.")
    workspace = ctx.dispatcher.workspace
    outcome = workspace.undo(ctx.session.topic)
    for file in outcome.files:
        if file.action == "deleted":
            ctx.session.seen.pop(file.rel, None)
        else:
            mark_seen(ctx.session.seen, workspace, file.rel)
    return with_diff(ctx, Result("Undo: " + "; ".join(describe(file) for file in outcome.files)), outcome.change_id,
                     undo_note=False)
