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
    from stringsh.render.code.index import SymbolIndex
    from stringsh.render.view import DocumentView
    from stringsh.workspace.engine import Workspace

BEFORE = "--before"
AFTER = "--after"


def edit_symbol(ctx: Caller, view: DocumentView, block_id: str, body: str, force: bool,
                where: str | None = None) -> Result:
    """Replace the symbol `#block_id` names by `body`, or (`where` is BEFORE or AFTER) add `body` beside it."""
    assert view.symbols is not None
    refuse_stale_view(ctx, view)
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


def plan_edit(workspace: Workspace, path: str, text: str, index: SymbolIndex, block_id: str, body: str,
              force: bool, where: str | None) -> Spliced:
    """The checked new text of a symbol edit (every dialect's): the symbol resolved, a body that would write a
    masked secret back or empty it refused, then the parse checks of render/code/splice.py."""
    symbol = resolve_symbol(index, path, block_id)
    label = f"{path}#{block_id}"
    data = text.encode("utf-8", "surrogatepass")
    current = data[symbol.start_byte : symbol.end_byte].decode("utf-8", "surrogatepass")
    refuse_mask_writeback(workspace, label, current, body)
    blockedit.refuse_empty(body, label, force)
    force_hint = f"/edit --force {label}" + (f" {where}" if where else "")
    if where is None:
        return checked_replace(text, index, symbol, body, label, force, force_hint)
    return checked_insert(text, index, symbol, body, where == AFTER, label, force, force_hint)


def write_spliced(workspace: Workspace, path: str, spliced: Spliced, encoding: str, bom: bool, expected: str,
                  topic: str | None) -> tuple[int | None, str]:
    """(change id, new sha256): one journaled write of the new text, encoded as the file was read and guarded by
    the hash it was read as (a change since is a CONFLICT)."""
    data = encode(spliced.text, encoding, bom, path)
    change = ChangeSet().write(path, data, expected_prev_sha256=expected)
    change_id = workspace.apply(change, topic=topic, op="edit")
    return change_id, hashlib.sha256(data).hexdigest()
