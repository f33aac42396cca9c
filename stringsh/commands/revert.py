"""/revert ID: put back what one change set replaced, any topic's, as a new change of this topic that `/undo` (or
`/revert` of it) takes back. CONFLICT names the later change to revert first."""

from __future__ import annotations

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.documents.diffreply import with_diff
from stringsh.documents.revertreply import outcome_parts, parse_id
from stringsh.errors import StringError
from stringsh.protocol.response import Result
from stringsh.workspace import mark_seen

USAGE = "Usage: /revert ID"


@handler("revert")
def revert(ctx: Context) -> Result:
    if len(ctx.args) != 1 or ctx.args[0].startswith("-"):
        raise StringError("INVALID_PAYLOAD", USAGE, "Give one change id, as /changes lists them: /revert 12")
    change_id = parse_id(ctx.args[0])
    workspace = ctx.dispatcher.workspace
    outcome = workspace.revert(change_id, topic=ctx.session.topic, undoable=True)
    for file in outcome.files:
        if file.action in ("deleted", "already_gone"):
            ctx.session.seen.pop(file.rel, None)
        else:
            mark_seen(ctx.session.seen, workspace, file.rel)
    parts = outcome_parts(outcome)
    message = f"Reverted change {change_id} as change {outcome.change_id}: " + ("; ".join(parts) or "nothing to write")
    return with_diff(ctx, Result(message), outcome.change_id)
