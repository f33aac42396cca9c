"""/verify: read-only check that a block resolves, with its size and a preview."""

from __future__ import annotations

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.commands.targets import edit_target
from stringsh.errors import StringError
from stringsh.protocol.response import Result, document_fields
from stringsh.render.view import resolve_block

PREVIEW_CHARS = 200


@handler("verify")
def verify(ctx: Context) -> Result:
    if not ctx.args or "#" not in ctx.args[0]:
        raise StringError("INVALID_TARGET", "Usage: /verify path#block", "Name a block: /verify notes.md#todo")
    path, block, _ = edit_target(ctx.documents, ctx.args, "verify")
    if not block:
        raise StringError("INVALID_TARGET", "Usage: /verify path#block", "Name a block: /verify notes.md#todo")
    view = ctx.documents.read_for_edit(path)
    content = view.doc.block_source(resolve_block(view, block))
    lines = content.count("\n") + 1 if content else 0
    shown = ctx.documents.workspace.redact(content)  # masked whole, then cut: a cut never splits a secret open
    preview = shown[:PREVIEW_CHARS] + ("..." if len(shown) > PREVIEW_CHARS else "")
    return Result(f"Verified {view.path}#{block} ({lines} lines, {len(content)} chars)", preview,
                  fields=document_fields(view.path, block))
