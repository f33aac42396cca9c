"""/replace: String's newer edit (docs/string-commands.md): exact old text → new text, `path:L5[-L10]` lines, or
`path#block` (the block edit). Every form is one journaled change: `/undo` puts the bytes back."""

from __future__ import annotations

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.commands.targets import edit_target, refuse_unknown_flags, split_dashes
from stringsh.documents import replacing
from stringsh.documents.blockwrite import edit_block
from stringsh.documents.diffreply import with_diff
from stringsh.documents.linerange import LineTarget, out_of_bounds, parse_line_target
from stringsh.documents.masking import refuse_mask_writeback
from stringsh.documents.symbolwrite import edit_symbol
from stringsh.errors import StringError
from stringsh.protocol.response import Result, document_fields
from stringsh.render.document import is_markdown
from stringsh.render.view import DocumentView
from stringsh.workspace import ChangeSet
from stringsh.workspace.atomic import sha256
from stringsh.workspace.ops import replace as exact
from stringsh.workspace.textio import encode, line_spans

ALL = "--all"
USAGE_HINT = ("Forms: /replace [--all] path (body: old text, a line ---, new text), /replace path#block or "
              "/replace path:L5[-L10] (body: the replacement).")


def exists(ctx: Context, path: str) -> bool:
    try:
        return ctx.documents.workspace.stat(path) is not None
    except StringError:
        return False


def replace_lines(ctx: Context, target: LineTarget, body: str) -> Result:
    """Lines start..end (1-based, inclusive) become the body's lines (more or fewer: the file may grow or shrink)."""
    documents = ctx.documents
    view = documents.read_for_edit(target.path)
    text = view.doc.text
    spans = line_spans(text)
    label = LineTarget(view.path, target.start, target.end)
    if target.end > len(spans):
        raise out_of_bounds(label, len(spans), f"Recovery: run /edit {view.path} for current line numbers.")
    region = text[spans[target.start - 1][0] : spans[target.end - 1][2]]
    refuse_mask_writeback(documents.workspace, label.label, region, body)
    outcome = documents.workspace.edit(view.path, target.start, target.end, body, topic=ctx.session.topic,
                                       expected_sha256=view.sha256)
    documents.after_write(view.path, outcome.sha256)
    return with_diff(ctx, Result(f"Replaced {label.label}", fields=document_fields(view.path)), outcome.change_id)


def not_found(view: DocumentView, old: str, mask: str) -> StringError:
    hint = (f"The old text holds {mask}: secrets are shown masked and never match the file. Use a line target "
            f"instead: /replace {view.path}:L5 (see /edit {view.path})." if mask in old else
            f"Copy the old text exactly from /edit {view.path} (spaces and line breaks count).")
    return StringError("NOT_FOUND", f"Old text not found in {view.path}.", hint)


def replace_text(ctx: Context, path: str, body: str, replace_all: bool) -> Result:
    """Exact old → new; more than one match needs `--all` (and `--all` refuses matches that overlap)."""
    pair = replacing.split_body(body)
    if pair is None:
        raise StringError("INVALID_PAYLOAD", "Substring replace body must contain a separator line:",
                          "/replace <path>\nold text\n---\nnew text")
    if pair.old == "":
        raise StringError("INVALID_PAYLOAD", "Old text cannot be empty.", "Put the text to find above the --- line.")
    if pair.old == pair.new:
        raise StringError("INVALID_PAYLOAD", "Old and new text are the same; nothing would change.",
                          "Put the text to find above the --- line and its replacement below it.")
    documents = ctx.documents
    workspace = documents.workspace
    view = documents.read_for_edit(path)
    text = view.doc.text
    try:
        done = exact.replace(text, pair.old, pair.new, "all" if replace_all else "one")
    except exact.Refused as exc:
        if exc.kind == "not_found":
            raise not_found(view, pair.old, workspace.policy.secrets.replacement) from None
        listed = replacing.preview(text, exc.matches, workspace.redact_lines)
        refusal = replacing.ambiguous if exc.kind == "ambiguous" else replacing.overlap_refused
        raise refusal(view.path, len(exc.matches), listed) from None
    matches = done.matches
    old_regions = "".join(text[start:end] for start, end in matches)
    refuse_mask_writeback(workspace, view.path, old_regions, pair.new * len(matches))
    data = encode(done.text, view.encoding, view.bom, view.path)
    change = ChangeSet().write(view.path, data, expected_prev_sha256=view.sha256)
    change_id = workspace.apply(change, topic=ctx.session.topic, op="edit")
    documents.after_write(view.path, sha256(data))
    count = "1 occurrence" if len(matches) == 1 else f"{len(matches)} occurrences"
    return with_diff(ctx, Result(f"Replaced {count} in {view.path}", fields=document_fields(view.path)), change_id)


def replace_block(ctx: Context, target: str, body: str) -> Result:
    """`path#block` (or `#block` of the open document): the block edit of `/edit path#block`."""
    documents = ctx.documents
    path, block, _start = edit_target(documents, [target], "replace")
    view = documents.read_for_edit(path)
    if not block:
        raise StringError("INVALID_TARGET", f"Usage: /replace {path}#block", USAGE_HINT)
    if view.symbols is not None:
        return edit_symbol(ctx, view, block, body, False)
    if not is_markdown(view.path):
        raise StringError("BLOCK_NOT_FOUND", f"Block not found: #{block} in {view.path}",
                          "This document has no blocks.")
    return edit_block(ctx, view, block, body, False)


@handler("replace")
def replace(ctx: Context) -> Result:
    args, literal = split_dashes(ctx.args)
    replace_all = ALL in args
    args = [a for a in args if a != ALL]
    refuse_unknown_flags(args, "replace")
    args += literal
    if len(args) != 1:
        raise StringError("INVALID_TARGET", "Usage: /replace [--all] <path>[#block | :L5[-L10]]", USAGE_HINT)
    if ctx.body is None:
        raise StringError("INVALID_PAYLOAD", "Usage: /replace <target>\n<replacement body>", USAGE_HINT)
    target = args[0]
    line = None if "#" in target else parse_line_target(target, lambda p: exists(ctx, p))
    if replace_all and ("#" in target or line is not None):
        raise StringError("INVALID_PAYLOAD", f"--all is for old/new text, not for {target}",
                          f"Leave --all out: /replace {target}")
    if "#" in target:
        return replace_block(ctx, target, ctx.body)
    if line is not None:
        return replace_lines(ctx, line, ctx.body)
    return replace_text(ctx, target, ctx.body, replace_all)
