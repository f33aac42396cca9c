"""Writing a symbol of a source file: `/edit path#Symbol` + body (and `/replace path#Symbol`, which delegates to
it) replaces the definition's bytes; `--before`/`--after` set a new definition beside it. The checks are
symbolsplice.py's; the write is one journaled change held, like a block edit (blockwrite.py), against the
symbol's text as this topic read it (partguard.py), not the whole file's hash: edits of other symbols or lines
of the file meanwhile never refuse it, and `/undo` puts back only this symbol's bytes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.documents import blockedit, partguard
from stringsh.documents.blockwrite import edited_reply
from stringsh.documents.diffreply import with_diff
from stringsh.documents.symboledit import AFTER, BEFORE, SymbolEdit, plan_edit, shown_lines, source, write_symbol
from stringsh.errors import StringError
from stringsh.protocol.response import Result, document_fields
from stringsh.render.code.cache import symbol_cache
from stringsh.render.code.views import resolve_symbol
from stringsh.render.document import Document

if TYPE_CHECKING:
    from stringsh.documents.host import Caller
    from stringsh.render.code.cache import SymbolCache
    from stringsh.render.code.index import SymbolIndex
    from stringsh.render.view import DocumentView

__all__ = ["AFTER", "BEFORE", "edit_symbol"]


def _expected(ctx: Caller, view: DocumentView, block_id: str, cache: SymbolCache) -> tuple[str, str]:
    """(the symbol's text as this topic read it, the file's text it read): CONFLICT, showing the symbol now, when
    the symbol is not the one read; BLOCK_NOT_FOUND / AMBIGUOUS_BLOCK as ever when it is in neither."""
    assert view.symbols is not None
    label = f"{view.path}#{block_id}"
    base_text = partguard.baseline(ctx.session, view.path, view.sha256, view.doc.text)
    base: SymbolIndex | None = None
    if base_text is not None and base_text != view.doc.text:
        base = cache.symbols(base_text, view.symbols.language)
    try:
        symbol = resolve_symbol(view.symbols, view.path, block_id)
    except StringError as exc:
        if exc.code == "BLOCK_NOT_FOUND" and base is not None and base.resolve(block_id) is not None:
            raise partguard.block_gone(label, view.path) from None
        raise
    now = source(view.doc.text, symbol)
    if base_text == view.doc.text:
        return now, view.doc.text
    old = None if base is None or base_text is None else base.resolve(block_id)
    if base_text is None or old is None or source(base_text, old) != now:
        known = view.doc.text  # from now on this topic has read the symbol as it is: the edit can be redone
        if base_text is not None and old is not None:
            data = base_text.encode("utf-8", "surrogatepass")
            known = (data[: old.start_byte] + now.encode("utf-8", "surrogatepass")
                     + data[old.end_byte :]).decode("utf-8", "surrogatepass")
        partguard.remember(ctx.session, view.path, known)
        raise partguard.block_changed(ctx.documents.workspace, label, shown_lines(view.doc.text, symbol))
    return now, base_text


def edit_symbol(ctx: Caller, view: DocumentView, block_id: str, body: str, force: bool,
                where: str | None = None) -> Result:
    """Replace the symbol `#block_id` names by `body`, or (`where` is BEFORE or AFTER) add `body` beside it."""
    assert view.symbols is not None
    documents = ctx.documents
    workspace = documents.workspace
    cache = symbol_cache(documents.state.index_cache)
    expected, known_text = _expected(ctx, view, block_id, cache)
    edit = SymbolEdit(block_id, body, force, where)
    spliced = plan_edit(workspace, view.path, view.doc.text, view.symbols, block_id, body, force, where)
    written = write_symbol(workspace, view.path, (view.sha256, view.doc.text), spliced, expected, edit, cache,
                           ctx.session.topic)
    spliced = written.spliced
    if view.encoding == "utf-8" and not view.bom:  # the index is keyed by the bytes it was built from
        cache.put(f"{written.sha256}{spliced.index.language}", spliced.index, len(spliced.text))  # type: ignore[arg-type]
    if written.text_before == known_text:  # the file held what this topic knew: it knows the whole file as written
        documents.after_write(view.path, written.sha256)
        partguard.remember(ctx.session, view.path, spliced.text)
    else:  # others changed other parts meanwhile: this topic knows its own symbol, not theirs
        _remember_own(ctx, view, known_text, edit, cache)
    total = spliced.index.line_count
    label = f"{view.path}#{block_id}"
    if where is None:
        splice = blockedit.Splice(Document(spliced.text), spliced.old_count, spliced.new_count, ())
        return with_diff(ctx, edited_reply(view.path, block_id, total, splice), written.change_id)
    count = f"{spliced.new_count} line" if spliced.new_count == 1 else f"{spliced.new_count} lines"
    side = "after" if where == AFTER else "before"
    text = f"Inserted {count} {side} {label} ({total} lines), from line {spliced.line + 1}"
    return with_diff(ctx, Result(text, fields=document_fields(view.path, block_id)), written.change_id)


def _remember_own(ctx: Caller, view: DocumentView, known_text: str, edit: SymbolEdit, cache: SymbolCache) -> None:
    """The baseline of this topic's next edit: the text it knew with just its own edit made (never others' parts)."""
    assert view.symbols is not None
    try:
        index = cache.symbols(known_text, view.symbols.language)
        mine = plan_edit(ctx.documents.workspace, view.path, known_text, index, edit.block_id, edit.body,
                         edit.force, edit.where)
    except StringError:  # the edit does not apply to the text it knew: `seen` alone guards the next one
        partguard.forget(ctx.session, view.path)
        return
    partguard.remember(ctx.session, view.path, mine.text)
