"""/rename path#Symbol NEW [--dry-run]: a definition and every reference attributed to it by scope, across files,
as one change set (documents/rename.py plans it, `Workspace.apply` writes it: one /undo takes it all back)."""

from __future__ import annotations

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.commands.searchreply import parse_options
from stringsh.documents.diffreply import with_diff
from stringsh.documents.listing import in_open_folder
from stringsh.documents.rename import USAGE, plan_rename, preview, summary, write_rename
from stringsh.errors import StringError
from stringsh.escapes import shown_name
from stringsh.hints import command_word
from stringsh.protocol.response import Result
from stringsh.workspace import mark_seen

#: What a rename by syntax leaves alone, said under every reply.
LEFT_ALONE = "Identifiers only: strings and comments that spell {old} (docs, __all__, getattr) are left as they are."


@handler("rename")
def rename(ctx: Context) -> Result:
    args, options = parse_options(ctx.args, "rename", ("--dry-run",), ())
    if len(args) != 2:
        raise StringError("INVALID_PAYLOAD", USAGE, "Example: /rename src/util.py#parse split_words --dry-run")
    if ctx.body:
        raise StringError("INVALID_PAYLOAD", "/rename takes no body: the new name is its second word.", USAGE)
    target, new_name = in_open_folder(ctx, args[0]), args[1]
    ws = ctx.dispatcher.workspace
    session = ctx.session
    plan = plan_rename(ws, target, new_name, topic=session.topic, seen=session.seen)
    label = shown_name(plan.label)
    left = LEFT_ALONE.format(old=plan.old_name)
    if "--dry-run" in options:
        for planned in plan.files:  # shown to this topic: the rename it then asks for is held against these bytes
            mark_seen(session.seen, ws, planned.rel, planned.sha256)
        again = f"/rename {command_word(plan.label)} {command_word(new_name)}"
        return Result(f"Would rename {label} to {new_name}: {summary(plan)}; nothing was written",
                      f"{preview(ws, plan)}\n\n{left}\nApply it: {again}")
    change_id = write_rename(ws, plan, topic=session.topic)
    for row in ws.journal.files(change_id):
        if row.new_sha is not None:
            ctx.documents.after_write(row.path, row.new_sha)
    reply = Result(f"Renamed {label} to {new_name}: {summary(plan)}",
                   f"{left}\nUse /undo to take the whole rename back.")
    return with_diff(ctx, reply, change_id)
