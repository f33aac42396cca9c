"""Writing a block (`/edit path#block` + body, and `/replace path#block`, which delegates to it): the checks of
blockedit.py, then one journaled splice guarded by the block's own text (partguard.py), not the whole file's
hash; and the one wording of a reply."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.documents import blockedit, partguard
from stringsh.documents.blockedit import Splice
from stringsh.documents.diffreply import with_diff
from stringsh.errors import StringError
from stringsh.protocol.response import Result, document_fields
from stringsh.render.document import Document
from stringsh.render.view import DocumentView, resolve_block
from stringsh.workspace import Located, PartEditRequest, PartText

if TYPE_CHECKING:
    from stringsh.documents.host import Caller
    from stringsh.render.index import Block
    from stringsh.workspace import TextFile


def _spliced(view: DocumentView, block: Block, block_id: str, body: str, label: str) -> tuple[Document, Splice]:
    """The document after the splice, every check of blockedit.py passed (nothing is written before)."""
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
    return edited, Splice(edited, end - start, count, blockedit.nested_blocks(view.doc, block, start, end))


def _changed(ctx: Caller, path: str, base: Document | None, block_id: str, doc: Document, block: Block,
             label: str) -> StringError:
    """The CONFLICT for a block that changed, showing its text now (the engine's wording, workspace/guards.py);
    this topic has read that text from now on (its baseline gets the block as it is now), so the edit can be
    redone without reading the whole file."""
    known = doc.text
    old = base.resolve(block_id) if base is not None else None
    if base is not None and old is not None:
        start, end = doc.block_range(block)
        known = base.edit_block(old, "\n".join(doc.source_lines(start, end))).text
    partguard.remember(ctx.session, path, known)
    return partguard.block_changed(ctx.documents.workspace, label, doc.block_source(block))


def _was_read(ctx: Caller, view: DocumentView, block_id: str) -> bool:
    """Whether the text this topic read of the file (not the file as found now) had the block."""
    base_text = partguard.baseline(ctx.session, view.path, view.sha256, view.doc.text)
    return base_text not in (None, view.doc.text) and Document.parse(base_text).resolve(block_id) is not None


def _expected(ctx: Caller, view: DocumentView, block_id: str, block: Block, label: str) -> tuple[str, Document | None]:
    """The block's text as this topic read it (partguard.py), and the document it read when that is not the file
    as found now; CONFLICT (showing the block now) when the block is not the one read."""
    now = view.doc.block_source(block)
    base_text = partguard.baseline(ctx.session, view.path, view.sha256, view.doc.text)
    if base_text == view.doc.text:
        return now, None
    base = None if base_text is None else Document.parse(base_text)
    old = None if base is None else base.resolve(block_id)
    if base is None or old is None or base.block_source(old) != now:
        raise _changed(ctx, view.path, base, block_id, view.doc, block, label)
    return now, base


def edit_block(ctx: Caller, view: DocumentView, block_id: str, body: str, force: bool) -> Result:
    """Splice the body into the block. The block's text as this topic read it is the precondition: it is found
    again by id in the file as it is under the engine's lock, and the splice applies whatever changed elsewhere
    in the file (CONFLICT, showing the block's text now, when the block itself changed)."""
    documents = ctx.documents
    workspace = documents.workspace
    label = f"{view.path}#{block_id}"
    try:
        block = resolve_block(view, block_id)
    except StringError as exc:
        if exc.code == "BLOCK_NOT_FOUND" and _was_read(ctx, view, block_id):
            raise partguard.block_gone(label, view.path) from None
        raise
    expected, base = _expected(ctx, view, block_id, block, label)
    body = blockedit.without_own_heading(view.doc, block, body, label)
    written: list[tuple[Document, Splice, bool]] = []

    def locate(current: TextFile) -> Located | None:
        """Under the lock: the block found again by id in the file as it is. A block whose text is not the one
        read moves this topic's baseline on first (the engine refuses the edit, showing the block now)."""
        doc, now, fresh = view.doc, block, view
        if current.sha256 != view.sha256:  # another edit came first (of this batch: its page is at hand)
            index = documents.state.index_as_spliced(current.text)
            doc = (Document(current.text, current.sha256, index) if index is not None
                   else Document.parse(current.text, current.sha256, documents.state.index_cache))
            fresh = view.replace(doc=doc, auto_shortcuts={})
            try:
                now = resolve_block(fresh, block_id)
            except StringError:
                return None
        text = doc.block_source(now)
        if text != expected:
            _changed(ctx, view.path, base or view.doc, block_id, doc, now, label)

        def splice(checked: str) -> str:
            """The splice, every check of blockedit.py passed (on the file as it is)."""
            edited, made = _spliced(fresh, now, block_id, checked, label)
            documents.state.spliced(edited)
            known = base is None if fresh is view else base is not None and base.text == current.text
            written.append((edited, made, known))
            return edited.text

        return Located(text, text, splice)

    done = workspace.edit_part(PartEditRequest(view.path, label, locate, body, PartText(expected),
                                               ctx.session.topic, "block", force))
    new_doc, splice, as_known = written[-1]
    new_doc.sha256 = done.sha256
    documents.state.index_cache.put(done.sha256, new_doc.index, len(new_doc.text))
    if as_known:  # the file held what this topic knew, so it knows the whole file as written
        documents.after_write(view.path, done.sha256, new_doc)
    else:  # others changed other parts meanwhile: this topic knows its own part, not theirs
        known = base or view.doc
        known_block = known.resolve(block_id)
        partguard.remember(ctx.session, view.path,
                           known.edit_block(known_block, body).text if known_block is not None else known.text)
    return with_diff(ctx, edited_reply(view.path, block_id, new_doc.index.line_count, splice), done.change_id)


def edited_reply(path: str, block: str | None, total: int, splice: Splice | None = None) -> Result:
    """The one place an /edit reply is worded: the file's new length; for a block, what was replaced by what and
    which nested blocks went with it."""
    fields = document_fields(path, block)
    if splice is None:
        return Result(f"Edited {path} ({total} {'line' if total == 1 else 'lines'}, whole file)", fields=fields)
    text = (f"Edited {path}#{block} ({total} lines): {lines(splice.old_count)} replaced by "
            f"{lines(splice.new_count)}")
    if splice.removed:
        text += f"; removed with them: {', '.join(splice.removed)}"
    return Result(text, fields=fields)


def lines(n: int) -> str:
    return f"{n} line" if n == 1 else f"{n} lines"
