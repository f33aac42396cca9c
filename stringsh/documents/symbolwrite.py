"""Writing a symbol of a source file: `/edit path#Symbol` + body (and `/replace path#Symbol`, which delegates to
it) replaces the definition's bytes; `--before`/`--after` set a new definition beside it. The checks are
render/code/splice.py's; the write is one journaled change guarded by the hash the view was read as, so `/undo`
puts every byte back."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.documents import blockedit
from stringsh.documents.blockwrite import edited_reply
from stringsh.documents.diffreply import with_diff
from stringsh.errors import StringError
from stringsh.protocol.response import Result, document_fields
from stringsh.render.code.cache import symbol_cache
from stringsh.render.code.write import AFTER, BEFORE, plan_edit, write_spliced
from stringsh.render.document import Document

if TYPE_CHECKING:
    from stringsh.documents.host import Caller
    from stringsh.render.view import DocumentView

__all__ = ["AFTER", "BEFORE", "edit_symbol"]


def _refuse_stale_view(ctx: Caller, view: DocumentView) -> None:
    """A symbol edit is held against the whole file as read (symbols move with any edit above them): an open view
    the file has since moved away from is a CONFLICT, not a lost edit."""
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


def edit_symbol(ctx: Caller, view: DocumentView, block_id: str, body: str, force: bool,
                where: str | None = None) -> Result:
    """Replace the symbol `#block_id` names by `body`, or (`where` is BEFORE or AFTER) add `body` beside it."""
    assert view.symbols is not None
    _refuse_stale_view(ctx, view)
    documents = ctx.documents
    spliced = plan_edit(documents.workspace, view.path, view.doc.text, view.symbols, block_id, body, force, where)
    change_id, sha256 = write_spliced(documents.workspace, view.path, spliced, view.encoding, view.bom, view.sha256,
                                      ctx.session.topic)
    if view.encoding == "utf-8" and not view.bom:  # the index is keyed by the bytes it was built from
        cache = symbol_cache(documents.state.index_cache)
        cache.put(f"{sha256}{spliced.index.language}", spliced.index, len(spliced.text))  # type: ignore[arg-type]
    documents.after_write(view.path, sha256)
    total = spliced.index.line_count
    label = f"{view.path}#{block_id}"
    if where is None:
        splice = blockedit.Splice(Document(spliced.text), spliced.old_count, spliced.new_count, ())
        return with_diff(ctx, edited_reply(view.path, block_id, total, splice), change_id)
    count = f"{spliced.new_count} line" if spliced.new_count == 1 else f"{spliced.new_count} lines"
    side = "after" if where == AFTER else "before"
    text = f"Inserted {count} {side} {label} ({total} lines), from line {spliced.line + 1}"
    return with_diff(ctx, Result(text, fields=document_fields(view.path, block_id)), change_id)
