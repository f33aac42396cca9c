"""/edit: view a file or block with line numbers, or replace it with the body (through the change journal)."""

from __future__ import annotations

import dataclasses
import hashlib

from stringsh.commands.context import Context
from stringsh.commands.open import current_view, split_from
from stringsh.commands.registry import handler
from stringsh.errors import StringError
from stringsh.protocol.response import Result
from stringsh.render.cache import cache_for
from stringsh.render.document import Document, is_markdown
from stringsh.render.view import DocumentView, budget_from, current_if_fresh, load_view, numbered, resolve_block
from stringsh.workspace import ChangeSet
from stringsh.workspace.seen import is_seen_unchanged, mark_seen, seen_sha256
from stringsh.workspace.textio import encode

FORCE = "--force"


def edit_target(ctx: Context, name: str) -> tuple[str, str | None, int]:
    """(path, block, start) from `/name path[#block]`, `/name #block` or `/name` (the open document)."""
    target, start = split_from(ctx, name)
    if target is None or target.startswith("#"):
        view = current_view(ctx) if target is not None or isinstance(ctx.session.document, DocumentView) else None
        if view is None:
            raise StringError("INVALID_PAYLOAD", f"Usage: /{name} path[#block]", "Or open a document first.")
        block = target[1:] if target else view.block
        return view.path, block or None, start
    path, _, block = target.partition("#")
    if not path:
        raise StringError("INVALID_PAYLOAD", f"Usage: /{name} path[#block]")
    return path, block or None, start


def read_view(ctx: Context, path: str) -> DocumentView:
    workspace = ctx.dispatcher.workspace
    info = workspace.stat(path)
    if info is None:
        raise StringError("NOT_FOUND", f"File not found: {path}")
    if info.is_dir:
        raise StringError("INVALID_TARGET", f"Is a directory: {info.rel}", f"Use /ls {info.rel}")
    fresh = current_if_fresh(ctx.session.document, workspace, info.rel)
    view = fresh or load_view(workspace, path, root=ctx.dispatcher.root, watch_file=False)
    if view.kind == "binary":
        raise StringError("BINARY_FILE", f"Binary file: {view.path} ({view.mime}, {view.size} bytes)")
    return view


def view_source(ctx: Context, view: DocumentView, block: str | None, start: int) -> Result:
    """`[editing: path[#block]]` + numbered source + `(N lines)`; numbers start at 1 inside a block."""
    if block:
        lines = view.doc.block_source(resolve_block(view, block)).split("\n")
    else:
        lines = view.doc.source_lines(0, len(view.doc.lines))
        if lines and lines[-1] == "" and view.doc.text.endswith("\n"):
            lines.pop()
    budget = budget_from(ctx.session.variables)
    text, next_index = numbered(lines, start=min(start, len(lines)), budget=budget)
    label = f"{view.path}#{block}" if block else view.path
    content = f"{text}\n\n({len(lines)} lines)"
    if next_index is not None:
        content += (f"\n[cut] Output limit of {budget} lines reached. "
                    f"Read on: /edit {label} --from {next_index + 1}")
    mark_seen(ctx.session.seen, ctx.dispatcher.workspace, view.path, view.sha256)
    return Result(f"[editing: {label}]", content)


def refuse_stale_view(ctx: Context, view: DocumentView) -> None:
    """A block edit based on an open view the file has since moved away from is a CONFLICT, not a lost edit."""
    current = ctx.session.document
    if (
        isinstance(current, DocumentView)
        and current.path == view.path
        and current.sha256 != view.sha256
        and ctx.session.seen.get(view.path) != view.sha256  # not this topic's own write or /undo
    ):
        raise StringError(
            "CONFLICT",
            f"Refusing to edit {view.path}: it changed since this topic opened it.",
            f"Run /refresh (or /open {view.path}) to see the current text, then retry.",
        )


def edit_block(ctx: Context, view: DocumentView, block_id: str, body: str) -> Result:
    refuse_stale_view(ctx, view)
    block = resolve_block(view, block_id)
    edited = view.doc.edit_block(block, body)
    if edited.resolve(block_id) is None:  # checked on the new text before writing, so nothing breaks on disk
        raise StringError(
            "INVALID_PAYLOAD",
            f"Refusing to edit {view.path}#{block_id}: with this text the block would no longer resolve.",
            "Check the body for an unclosed ``` fence or a block marker; nothing was written.",
        )
    # The spliced text already has the file's own line endings, so it is encoded here as the file was read and
    # applied as one journaled change guarded by the hash the view was built from (a change since is a CONFLICT).
    workspace = ctx.dispatcher.workspace
    data = encode(edited.text, view.encoding, view.bom, view.path)
    workspace.apply(ChangeSet().write(view.path, data, expected_prev_sha256=view.sha256), topic=ctx.session.topic)
    edited.sha256 = hashlib.sha256(data).hexdigest()
    cache_for(ctx.dispatcher.root).put(edited.sha256, edited.index, len(data))
    after_write(ctx, view.path, edited.sha256, edited)
    return Result(f"Edited {view.path}#{block_id} ({edited.index.line_count} lines)")


def edit_whole(ctx: Context, view: DocumentView, body: str, force: bool) -> Result:
    workspace = ctx.dispatcher.workspace
    seen = ctx.session.seen
    if not force:
        if seen_sha256(seen, workspace, view.path) is None:
            raise StringError(
                "CONFLICT", f"Refusing to overwrite existing file not read in this topic: {view.path}",
                f"Run /open {view.path} or /edit {view.path} first, then retry. "
                "Use --force only when you intend to replace the whole file.",
            )
        if not is_seen_unchanged(seen, workspace, view.path):
            raise StringError(
                "CONFLICT", f"Refusing to overwrite {view.path}: it changed since this topic read it.",
                f"Run /open {view.path} or /edit {view.path} again, then retry.",
            )
    expected = None if force else seen_sha256(seen, workspace, view.path)
    outcome = workspace.write_text(view.path, body, topic=ctx.session.topic, expected_sha256=expected)
    after_write(ctx, view.path, outcome.sha256)
    lines = body.count("\n") + (0 if not body or body.endswith("\n") else 1)
    return Result(f"Edited {view.path} ({lines} lines, whole file)")


def after_write(ctx: Context, rel: str, sha256: str, written: Document | None = None) -> None:
    """This topic wrote the file: it has seen it, and an open view of it is updated so it is not stale.

    `written` is the document as written (a block edit knows it), which saves reading the file back.
    """
    workspace = ctx.dispatcher.workspace
    mark_seen(ctx.session.seen, workspace, rel, sha256)
    current = ctx.session.document
    if isinstance(current, DocumentView) and current.path == rel:
        info = workspace.stat(rel) if written is not None else None
        if written is not None and info is not None:
            fresh = dataclasses.replace(current, doc=written, size=info.size, mtime_ns=info.mtime_ns, auto_shortcuts={})
        else:
            fresh = load_view(workspace, rel, root=ctx.dispatcher.root, watch_file=current.watcher is None)
        fresh.watcher = fresh.watcher or current.watcher
        if fresh.watcher is not None:
            fresh.watcher.changed.clear()
        fresh.block = current.block if current.block and fresh.doc.resolve(current.block) else None
        ctx.session.document = fresh


@handler("edit")
def edit(ctx: Context) -> Result:
    force = FORCE in ctx.args
    if force:
        ctx.invocation.args = [a for a in ctx.args if a != FORCE]
    path, block, start = edit_target(ctx, "edit")
    view = read_view(ctx, path)
    if ctx.body is None:
        return view_source(ctx, view, block, start)
    if block:
        if not is_markdown(view.path):
            raise StringError("BLOCK_NOT_FOUND", f"Block not found: #{block} in {view.path}",
                              "This document has no blocks.")
        return edit_block(ctx, view, block, ctx.body)
    return edit_whole(ctx, view, ctx.body, force)
