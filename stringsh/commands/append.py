"""/append: add text at the end of an existing file, in its encoding and line endings."""

from __future__ import annotations

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.documents.diffreply import with_diff
from stringsh.documents.writing import split_target
from stringsh.errors import StringError
from stringsh.protocol.response import Result, document_fields
from stringsh.workspace import is_seen_unchanged, mark_seen


@handler("append")
def append(ctx: Context) -> Result:
    path, text, _ = split_target(ctx.arg_text, ctx.session.variables, ctx.body, "append", allow_force=False)
    if text == "":
        raise StringError("INVALID_PAYLOAD", "Nothing to append.", "Give the text in the body.")
    workspace = ctx.dispatcher.workspace
    seen = ctx.session.seen
    rel = workspace.relative(path)
    was_current = is_seen_unchanged(seen, workspace, path)
    outcome = workspace.append_text(path, text, topic=ctx.session.topic)
    if was_current:  # the topic knew the file before; it knows the appended result too
        mark_seen(seen, workspace, path, outcome.sha256)
    reply = Result(f"Appended to: {rel} (now {outcome.size} bytes)", fields=document_fields(rel))
    return with_diff(ctx, reply, outcome.change_id)
