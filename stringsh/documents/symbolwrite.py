"""Writing a symbol of a source file: `/edit path#Symbol` + body (and `/replace path#Symbol`, which delegates to
it) replaces the definition's bytes; `--before`/`--after` set a new definition beside it. The checks are
render/code/splice.py's; the write is one journaled change guarded by the hash the view was read as, so `/undo`
puts every byte back."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from stringsh.documents import blockedit
from stringsh.documents.blockwrite import edited_reply, refuse_stale_view
from stringsh.documents.diffreply import with_diff
from stringsh.documents.masking import refuse_mask_writeback
from stringsh.protocol.response import Result, document_fields
from stringsh.render.code.cache import symbol_cache
from stringsh.render.code.splice import Spliced, checked_insert, checked_replace
from stringsh.render.code.views import resolve_symbol
from stringsh.render.document import Document
from stringsh.workspace import ChangeSet
from stringsh.workspace.textio import encode

if TYPE_CHECKING:
    from stringsh.documents.host import Caller
    from stringsh.render.view import DocumentView

BEFORE = "--before"
AFTER = "--after"


def edit_symbol(ctx: Caller, view: DocumentView, block_id: str, body: str, force: bool,
                where: str | None = None) -> Result:
    """Replace the symbol `#block_id` names by `body`, or (`where` is BEFORE or AFTER) add `body` beside it."""
    assert view.symbols is not None
    refuse_stale_view(ctx, view)
    symbol = resolve_symbol(view.symbols, view.path, block_id)
    label = f"{view.path}#{block_id}"
    data = view.doc.text.encode("utf-8", "surrogatepass")
    current = data[symbol.start_byte : symbol.end_byte].decode("utf-8", "surrogatepass")
    refuse_mask_writeback(ctx.documents.workspace, label, current, body)
    blockedit.refuse_empty(body, label, force)
    flag = f" {where}" if where else ""
    force_hint = f"/edit --force {label}{flag}"
    if where is None:
        spliced = checked_replace(view.doc.text, view.symbols, symbol, body, label, force, force_hint)
    else:
        spliced = checked_insert(view.doc.text, view.symbols, symbol, body, where == AFTER, label, force, force_hint)
    change_id, total = _write(ctx, view, spliced)
    if where is None:
        splice = blockedit.Splice(Document(spliced.text), spliced.old_count, spliced.new_count, ())
        return with_diff(ctx, edited_reply(view.path, block_id, total, splice), change_id)
    count = f"{spliced.new_count} line" if spliced.new_count == 1 else f"{spliced.new_count} lines"
    side = "after" if where == AFTER else "before"
    text = f"Inserted {count} {side} {label} ({total} lines), from line {spliced.line + 1}"
    return with_diff(ctx, Result(text, fields=document_fields(view.path, block_id)), change_id)


def _write(ctx: Caller, view: DocumentView, spliced: Spliced) -> tuple[int | None, int]:
    """One journaled write of the new text, encoded as the file was read; the new index goes to the cache."""
    documents = ctx.documents
    data = encode(spliced.text, view.encoding, view.bom, view.path)
    change = ChangeSet().write(view.path, data, expected_prev_sha256=view.sha256)
    change_id = documents.workspace.apply(change, topic=ctx.session.topic, op="edit")
    sha256 = hashlib.sha256(data).hexdigest()
    if view.encoding == "utf-8" and not view.bom:  # the index is keyed by the bytes it was built from
        symbol_cache(documents.state.index_cache).put(f"{sha256}{spliced.index.language}", spliced.index,  # type: ignore[arg-type]
                                                      len(data))
    documents.after_write(view.path, sha256)
    return change_id, spliced.index.line_count

