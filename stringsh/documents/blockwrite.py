"""Writing a block (`/edit path#block` + body, and `/replace path#block`, which delegates to it): the checks of
blockedit.py, then one journaled splice guarded by the hash the view was read as; and the one wording of a reply."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from stringsh.documents import blockedit
from stringsh.documents.diffreply import with_diff
from stringsh.documents.masking import refuse_mask_writeback
from stringsh.errors import StringError
from stringsh.protocol.response import Result, document_fields
from stringsh.render.view import DocumentView, resolve_block
from stringsh.workspace import ChangeSet
from stringsh.workspace.textio import encode

if TYPE_CHECKING:
    from stringsh.documents.host import Caller


def refuse_stale_view(ctx: Caller, view: DocumentView) -> None:
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


def edit_block(ctx: Caller, view: DocumentView, block_id: str, body: str, force: bool) -> Result:
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
