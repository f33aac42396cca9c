"""/edit: view a file or block with line numbers, or replace it with the body (through the change journal)."""

from __future__ import annotations

import hashlib

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.documents import blockedit
from stringsh.documents.diffreply import with_diff
from stringsh.documents.guard import FORCE, require_seen
from stringsh.documents.masking import masked_note, refuse_mask_writeback
from stringsh.documents.targets import edit_target
from stringsh.errors import StringError
from stringsh.protocol.response import Result, document_fields
from stringsh.render.document import Document, is_markdown
from stringsh.render.view import DocumentView, budget_from, masked, numbered, resolve_block
from stringsh.workspace import ChangeSet
from stringsh.workspace.textio import encode


def view_source(ctx: Context, view: DocumentView, block: str | None, start: int) -> Result:
    """`[editing: path[#block]]` + numbered source + `(N lines)`; numbers start at 1 inside a block.

    Secrets are masked line for line (the numbers stay the file's), and a `[masked]` line says so."""
    workspace = ctx.documents.workspace
    shown = masked(view, workspace.redact_lines)
    if block:
        lines = shown.doc.block_source(resolve_block(shown, block)).split("\n")
    else:
        lines = shown.doc.source_lines(0, len(shown.doc.lines))
        if lines and lines[-1] == "" and shown.doc.text.endswith("\n"):
            lines.pop()
    budget = budget_from(ctx.session.variables)
    text, next_index = numbered(lines, start=min(start, len(lines)), budget=budget)
    label = f"{view.path}#{block}" if block else view.path
    content = f"{text}\n\n({len(lines)} lines)"
    if next_index is not None:
        content += (f"\n[cut] Output limit of {budget} lines reached. "
                    f"Read on: /edit {label} --from {next_index + 1}")
    if shown is not view:
        content += f"\n{masked_note(workspace)}"
    ctx.documents.mark_seen(view)
    return Result(f"[editing: {label}]", content, fields=document_fields(view.path, block))


def refuse_stale_view(ctx: Context, view: DocumentView) -> None:
    """A block edit based on an open view the file has since moved away from is a CONFLICT, not a lost edit."""
    current = ctx.documents.current_or_none()
    if (
        current is not None
        and current.path == view.path
        and current.sha256 != view.sha256
        and ctx.session.seen.get(view.path) != view.sha256  # not this topic's own write or /undo
    ):
        raise StringError(
            "CONFLICT",
            f"Refusing to edit {view.path}: it changed since this topic opened it.",
            f"Run /refresh (or /open {view.path}) to see the current text, then retry.",
        )


def edit_block(ctx: Context, view: DocumentView, block_id: str, body: str, force: bool) -> Result:
    refuse_stale_view(ctx, view)
    block = resolve_block(view, block_id)
    documents = ctx.documents
    label = f"{view.path}#{block_id}"
    refuse_mask_writeback(documents.workspace, label, view.doc.block_source(block), body)
    body = blockedit.without_own_heading(view.doc, block, body, label)
    blockedit.refuse_empty(body, label, force)
    start, end = view.doc.block_range(block)
    edited = view.doc.edit_block(block, body)
    count = len(edited.lines) - (len(view.doc.lines) - (end - start))
    if edited.resolve(block_id) is None:  # checked on the new text before writing, so nothing breaks on disk
        raise StringError(
            "INVALID_PAYLOAD",
            f"Refusing to edit {label}: with this text the block would no longer resolve.",
            "Check the body for an unclosed ``` fence or a block marker; nothing was written.",
        )
    blockedit.refuse_open_fence(body, label)
    blockedit.refuse_damage_outside(view.doc, edited, start, end, count, label)
    blockedit.refuse_view_references(body, view.doc.text, edited, label, label)
    splice = blockedit.Splice(edited, end - start, count, blockedit.nested_blocks(view.doc, block, start, end))
    # The spliced text already has the file's own line endings, so it is encoded here as the file was read and
    # applied as one journaled change guarded by the hash the view was built from (a change since is a CONFLICT).
    data = encode(edited.text, view.encoding, view.bom, view.path)
    change = ChangeSet().write(view.path, data, expected_prev_sha256=view.sha256)
    change_id = documents.workspace.apply(change, topic=ctx.session.topic, op="edit")
    edited.sha256 = hashlib.sha256(data).hexdigest()
    documents.state.index_cache.put(edited.sha256, edited.index, len(data))
    documents.after_write(view.path, edited.sha256, edited)
    return with_diff(ctx, edited_reply(view.path, block_id, edited.index.line_count, splice), change_id)


def edited_reply(path: str, block: str | None, total: int, splice: blockedit.Splice | None = None) -> Result:
    """The one place an /edit reply is worded: the file's new length; for a block, what was replaced by what and
    which nested blocks went with it."""
    fields = document_fields(path, block)
    if splice is None:
        return Result(f"Edited {path} ({total} lines, whole file)", fields=fields)
    text = (f"Edited {path}#{block} ({total} lines): {lines(splice.old_count)} replaced by "
            f"{lines(splice.new_count)}")
    if splice.removed:
        text += f"; removed with them: {', '.join(splice.removed)}"
    return Result(text, fields=fields)


def lines(n: int) -> str:
    return f"{n} line" if n == 1 else f"{n} lines"


def follow_file(body: str, old: str) -> str:
    """A whole-file body gets the file's final-newline state; `\r\n` in it becomes `\n`, which the engine writes
    with the file's own line ending (DESIGN.md §5)."""
    body = body.replace("\r\n", "\n")
    if not old:
        return body
    if old.endswith(("\n", "\r")):
        return body if not body or body.endswith("\n") else body + "\n"
    return body[:-1] if body.endswith("\n") else body


def edit_whole(ctx: Context, view: DocumentView, body: str, force: bool) -> Result:
    documents = ctx.documents
    blockedit.refuse_empty(body, view.path, force)
    overwrite = require_seen(ctx.session.seen, view.path, label=view.path, force=force, force_note_on_change=False)
    refuse_mask_writeback(documents.workspace, view.path, view.doc.text, body)
    body = follow_file(body, view.doc.text)
    if is_markdown(view.path):
        blockedit.refuse_view_references(body, view.doc.text, Document.parse(body), view.path, view.path)
    with overwrite.checked():
        outcome = documents.workspace.write_text(
            view.path, body, topic=ctx.session.topic, expected_sha256=overwrite.expected, op="edit"
        )
    documents.after_write(view.path, outcome.sha256)
    total = body.count("\n") + (0 if not body or body.endswith("\n") else 1)
    return with_diff(ctx, edited_reply(view.path, None, total), outcome.change_id)


@handler("edit")
def edit(ctx: Context) -> Result:
    force = FORCE in ctx.args
    args = [a for a in ctx.args if a != FORCE]
    path, block, start = edit_target(ctx.documents, args, "edit")
    view = ctx.documents.read_for_edit(path)
    if ctx.body is None:
        return view_source(ctx, view, block, start)
    if block:
        if not is_markdown(view.path):
            raise StringError("BLOCK_NOT_FOUND", f"Block not found: #{block} in {view.path}",
                              "This document has no blocks.")
        return edit_block(ctx, view, block, ctx.body, force)
    return edit_whole(ctx, view, ctx.body, force)
