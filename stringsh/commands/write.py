"""/write: create or replace a whole file, guarded against overwriting content this topic has not read."""

from __future__ import annotations

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.documents.diffreply import with_diff
from stringsh.documents.guard import require_seen
from stringsh.documents.writing import split_target
from stringsh.errors import is_a_folder, not_a_regular_file
from stringsh.escapes import shown_name
from stringsh.protocol.response import Result, document_fields
from stringsh.workspace import mark_seen


@handler("write")
def write(ctx: Context) -> Result:
    path, text, force = split_target(ctx.arg_text, ctx.session.variables, ctx.body, "write", allow_force=True)
    workspace = ctx.dispatcher.workspace
    seen = ctx.session.seen
    rel = workspace.relative(path)
    info = workspace.stat(path)
    if info is not None and info.is_dir:
        raise is_a_folder(rel)
    if info is not None and info.kind == "other":  # a FIFO, socket or device: no reading it first would help
        raise not_a_regular_file(shown_name(rel))
    overwrite = require_seen(seen, info.rel if info is not None else None, label=rel, force=force)
    with overwrite.checked():  # the engine refuses a masked secret written back (workspace/guards.py)
        outcome = workspace.write_text(path, text, topic=ctx.session.topic, guard=overwrite.guard)
    mark_seen(seen, workspace, path, outcome.sha256)
    verb = "Created:" if outcome.created else "Written:"
    lines = f"{outcome.lines} {'line' if outcome.lines == 1 else 'lines'}"
    reply = Result(f"{verb} {rel} ({outcome.size} bytes, {lines})", fields=document_fields(rel))
    return with_diff(ctx, reply, outcome.change_id)
