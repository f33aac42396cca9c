"""/replace: String's newer edit (docs/string-commands.md): exact old text → new text, `path:L5[-L10]` lines, or
`path#block` (the block edit). Every form is one journaled change: `/undo` puts the bytes back. None is held
against the whole file's hash: the old text, the lines' text or the block's text is each its own precondition,
checked in the file as it is under the engine's lock."""

from __future__ import annotations

import contextlib
import re
from typing import TYPE_CHECKING

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.commands.targets import edit_target, refuse_unknown_flags, split_dashes
from stringsh.documents import partguard, replacing
from stringsh.documents.blockwrite import edit_block
from stringsh.documents.diffreply import with_diff
from stringsh.documents.linerange import LineTarget, out_of_bounds, parse_line_target
from stringsh.documents.symbolwrite import edit_symbol
from stringsh.errors import Step, StringError, hint, recovery
from stringsh.escapes import escape_controls
from stringsh.hints import command_word
from stringsh.protocol.response import Result, document_fields
from stringsh.render.document import is_markdown
from stringsh.render.view import DocumentView
from stringsh.workspace import (
    Located,
    PairRefused,
    PartEditRequest,
    PartText,
    ReplaceMode,
    ReplaceRefused,
    exact_replace,
    line_spans,
    splice_lines,
    split_lines,
)

if TYPE_CHECKING:
    from stringsh.workspace import TextFile

ALL = "--all"
USAGE_HINT = ("Forms: /replace [--all] path (body: old text, a line ---, new text), /replace path#block or "
              "/replace path:L5[-L10] (body: the replacement).")


def exists(ctx: Context, path: str) -> bool:
    try:
        return ctx.documents.workspace.stat(path) is not None
    except StringError:
        return False


def find_lines(lines: list[str], wanted: list[str]) -> list[int]:
    """Every 1-based line number where `wanted` starts in `lines` (at most two: one is enough to follow)."""
    found: list[int] = []
    first = wanted[0]
    for at, line in enumerate(lines):
        if line == first and lines[at : at + len(wanted)] == wanted:
            found.append(at + 1)
            if len(found) > 1:
                break
    return found


def replace_lines(ctx: Context, target: LineTarget, body: str) -> Result:
    """Lines start..end (1-based, inclusive) become the body's lines (more or fewer: the file may grow or shrink).

    The lines' text as this topic read them is the precondition (partguard.py), checked in the file as it is
    under the engine's lock: unchanged at those numbers, they are replaced whatever changed elsewhere; moved
    whole to other numbers (lines added or removed above them), they are followed when found at exactly one
    place; else CONFLICT, showing what those lines hold now."""
    documents = ctx.documents
    workspace = documents.workspace
    view = documents.read_for_edit(target.path)
    text = view.doc.text
    spans = line_spans(text)
    label = LineTarget(view.path, target.start, target.end)
    if target.end > len(spans):
        raise out_of_bounds(label, len(spans), recovery(view.path))
    edit_hint = Step("view", target=view.path)
    base_text = partguard.baseline(ctx.session, view.path, view.sha256, text)
    base_lines = split_lines(base_text) if base_text is not None else []
    if base_text is None or target.end > len(base_lines):
        partguard.remember(ctx.session, view.path, text)
        raise partguard.lines_changed(workspace, label.label, region_of(text, target.start, target.end), edit_hint)
    wanted = base_lines[target.start - 1 : target.end]
    placed: list[LineTarget] = []

    def locate(current: TextFile) -> Located | None:
        """The lines as read, at their numbers or moved whole to exactly one other place; else the lines now at
        those numbers (which the engine refuses, showing them), None past the file's end."""
        lines = split_lines(current.text)
        at = target.start
        if lines[at - 1 : target.end] != wanted:
            found = find_lines(lines, wanted)
            if len(found) != 1:
                if at > len(lines):
                    return None
                now = region_of(current.text, at, min(target.end, len(lines)))
                return Located(now, now, str)
            at = found[0]
        end = at + len(wanted) - 1

        def splice(replacement: str) -> str:
            placed.append(LineTarget(view.path, at, end))
            return splice_lines(current.text, at, end, replacement)

        return Located("\n".join(wanted), "\n".join(wanted), splice)

    done = workspace.edit_part(PartEditRequest(view.path, label.label, locate, body, PartText("\n".join(wanted)),
                                               ctx.session.topic, "lines", True, edit_hint))
    where = placed[-1]
    if done.current.text == base_text:
        documents.after_write(view.path, done.sha256)
        partguard.remember(ctx.session, view.path, done.text)
    else:  # others changed other lines meanwhile: this topic knows its own lines, not theirs
        partguard.remember(ctx.session, view.path, splice_lines(base_text, target.start, target.end, body))
    said = f"Replaced {where.label}"
    if where != label:
        said += f" (they were {label.span} when this topic read them)"
    return with_diff(ctx, Result(said, fields=document_fields(view.path)), done.change_id)


def region_of(text: str, start: int, end: int) -> str:
    """Lines start..end (1-based, inclusive) of `text`, without their endings."""
    return "\n".join(split_lines(text)[start - 1 : end])


def not_found(view: DocumentView, old: str, mask: str) -> StringError:
    shown = mask if mask in old else next((e for e in re.findall(r"\\x[0-9a-f]{2}", old)
                                          if escape_controls(chr(int(e[2:], 16))) == e), None)
    what = "secrets are shown masked" if shown == mask else "control characters are shown escaped"
    advice = (f"The old text holds {shown}: {what} and never match the file. Use a line target instead: "
              f"/replace {command_word(view.path)}:L5 (see /edit {command_word(view.path)})." if shown else
              hint("Copy the old text exactly from ", Step("view", target=view.path),
                   " (spaces and line breaks count)."))
    return StringError("NOT_FOUND", f"Old text not found in {view.path}.", advice)


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
    mode: ReplaceMode = "all" if replace_all else "one"
    try:  # the old text must match as required in the file as it is under the engine's lock; nothing else counts
        written = workspace.replace(path, ((pair.old, pair.new),), mode=mode, topic=ctx.session.topic)
    except PairRefused as exc:
        view = documents.read_for_edit(path)  # the file named as a read names it (and refused as a read is)
        if exc.kind == "not_found":
            raise not_found(view, pair.old, workspace.policy.secrets.replacement) from None
        listed = replacing.preview(exc.text, exc.matches, workspace.redact_lines)
        refusal = replacing.ambiguous if exc.kind == "ambiguous" else replacing.overlap_refused
        raise refusal(view.path, len(exc.matches), listed) from None
    except StringError:
        documents.read_for_edit(path)  # a folder, a binary or a Latin-1 file: refused as a read words it
        raise
    # read once, by the engine under its lock (an edit changed nothing when it was refused: read again then)
    rel = written.rel
    base_text = partguard.baseline(ctx.session, rel, written.before_sha256, written.before)
    if written.before == base_text:
        documents.after_write(rel, written.sha256)
        partguard.remember(ctx.session, rel, written.text)
    elif base_text is not None:  # others changed the file meanwhile: this topic knows its own replacement only
        with contextlib.suppress(ReplaceRefused):  # not where this topic read it: what it knows there stays
            partguard.remember(ctx.session, rel, exact_replace(base_text, pair.old, pair.new, mode).text)
    count = written.count
    shown = "1 occurrence" if count == 1 else f"{count} occurrences"
    return with_diff(ctx, Result(f"Replaced {shown} in {rel}", fields=document_fields(rel)), written.change_id)


def replace_block(ctx: Context, target: str, body: str) -> Result:
    """`path#block` (or `#block` of the open document): the block edit of `/edit path#block`."""
    documents = ctx.documents
    path, block, _start = edit_target(documents, [target], "replace")
    view = documents.read_for_edit(path)
    if not block:
        raise StringError("INVALID_TARGET", f"Usage: /replace {command_word(path)}#block", USAGE_HINT)
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
                          f"Leave --all out: /replace {command_word(target)}")
    if "#" in target:
        return replace_block(ctx, target, ctx.body)
    if line is not None:
        return replace_lines(ctx, line, ctx.body)
    return replace_text(ctx, target, ctx.body, replace_all)
