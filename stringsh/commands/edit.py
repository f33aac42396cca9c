"""/edit: view a file or block with line numbers, or replace it with the body (through the change journal)."""

from __future__ import annotations

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.commands.targets import edit_target
from stringsh.documents import blockedit
from stringsh.documents.blockwrite import edit_block, edited_reply
from stringsh.documents.diffreply import with_diff
from stringsh.documents.guard import FORCE, require_seen
from stringsh.documents.linerange import parse_line_target
from stringsh.documents.masking import masked_note
from stringsh.documents.rangeview import range_view
from stringsh.documents.symbolwrite import AFTER, BEFORE, edit_symbol
from stringsh.errors import StringError
from stringsh.hints import command_word
from stringsh.protocol.response import Result, document_fields
from stringsh.render.document import Document, is_markdown
from stringsh.render.view import DocumentView, budget_from, masked, numbered, resolve_block


def view_source(ctx: Context, view: DocumentView, block: str | None, start: int) -> Result:
    """`[editing: path[#block]]` + numbered source + `(N lines)`, numbered as the file's lines (a markdown block
    as a symbol, and as `/replace path:L5-L10` counts them; `--from N` is a line of the file too).

    Secrets are masked line for line (the numbers stay the file's), and a `[masked]` line says so."""
    workspace = ctx.documents.workspace
    shown = masked(view, workspace.redact_lines)
    first = 1
    if block and view.symbols is not None:  # a symbol: its whole lines, numbered as the file's
        found = resolve_block(shown, block)
        lines, first = shown.doc.source_lines(found.start, found.end), found.start + 1
        start = max(start - found.start, 0) if start else 0
    elif block:
        found = resolve_block(shown, block)
        lines = shown.doc.block_source(found).split("\n")
        whole = shown.doc.source_lines(found.start, found.end)
        first = found.start + 1 + next((i for i, line in enumerate(whole) if line.strip()), 0)  # past blank lines
        start = max(start - first + 1, 0) if start else 0
    else:
        lines = shown.doc.source_lines(0, len(shown.doc.lines))
        if lines and lines[-1] == "" and shown.doc.text.endswith("\n"):
            lines.pop()
    budget = budget_from(ctx.session.variables)
    text, next_index = numbered(lines, first_number=first, start=min(start, len(lines)), budget=budget)
    label = f"{view.path}#{block}" if block else view.path
    content = f"{text}\n\n({len(lines)} lines)"
    if next_index is not None:
        content += (f"\n[cut] Output limit of {budget} lines reached. "
                    f"Read on: /edit {command_word(label)} --from {next_index + first}")
    if shown is not view:
        content += f"\n{masked_note(workspace)}"
    ctx.documents.mark_seen(view)
    return Result(f"[editing: {label}]", content, fields=document_fields(view.path, block))


#: Whole-file /edit flags that set the new text's final line break instead of keeping the file's (a heredoc body
#: always ends with one, so the body alone cannot say whether the last line has one).
FINAL_NEWLINE, NO_FINAL_NEWLINE = "--final-newline", "--no-final-newline"


def follow_file(body: str, old: str, final: bool | None = None) -> str:
    """A whole-file body gets the file's final-newline state, or `final`'s when given (`--final-newline`,
    `--no-final-newline`); `\r\n` in it becomes `\n`, which the engine writes with the file's own line ending."""
    body = body.replace("\r\n", "\n")
    if final is None:
        if not old:
            return body
        final = old.endswith(("\n", "\r"))
    if final:
        return body if not body or body.endswith("\n") else body + "\n"
    return body[:-1] if body.endswith("\n") else body


def edit_whole(ctx: Context, view: DocumentView, body: str, force: bool, final: bool | None = None) -> Result:
    documents = ctx.documents
    overwrite = require_seen(ctx.session.seen, view.path, label=view.path, force=force, force_note_on_change=False)
    body = follow_file(body, view.doc.text, final)
    if is_markdown(view.path):
        blockedit.refuse_view_references(body, view.doc.text, Document.parse(body), view.path, view.path)
    with overwrite.checked():
        outcome = documents.workspace.write_text(  # the engine refuses an empty body unforced, a mask written back
            view.path, body, topic=ctx.session.topic, guard=overwrite.guard, op="edit", empty_ok=force
        )
    documents.after_write(view.path, outcome.sha256)
    total = body.count("\n") + (0 if not body or body.endswith("\n") else 1)
    return with_diff(ctx, edited_reply(view.path, None, total), outcome.change_id)


def exists(ctx: Context, path: str) -> bool:
    """Whether `path` names a file or folder (a file may be called `x:Ly`)."""
    try:
        return ctx.documents.workspace.stat(path) is not None
    except StringError:
        return False


@handler("edit")
def edit(ctx: Context) -> Result:
    force = FORCE in ctx.args
    where = next((a for a in ctx.args if a in (BEFORE, AFTER)), None)
    final = _final_flag(ctx.args)
    args = [a for a in ctx.args if a not in (FORCE, BEFORE, AFTER, FINAL_NEWLINE, NO_FINAL_NEWLINE)]
    path, block, start = edit_target(ctx.documents, args, "edit")
    line = None if block else parse_line_target(path, lambda p: exists(ctx, p))
    if line is not None:
        if ctx.body is not None:
            raise StringError("INVALID_TARGET", f"/edit replaces a whole file or a block, not lines: {line.label}",
                              f"Replace lines with /replace {command_word(line.label)} and the same body.")
        return range_view(ctx, line, line.path, "/edit", start)
    view = ctx.documents.read_for_edit(path)
    if where is not None and (not block or view.symbols is None):
        raise StringError("INVALID_PAYLOAD", f"{where} adds a definition beside a symbol of a source file",
                          f"Name the symbol: /edit {command_word(view.path)}#<symbol> {where} "
                          f"(/open {command_word(view.path)} lists them).")
    if ctx.body is None:
        if where is not None:
            raise StringError("INVALID_PAYLOAD", f"/edit {where} needs a body: the new definition",
                              f"Send it below the command line: /edit {command_word(view.path)}#{block} {where}")
        return view_source(ctx, view, block, start)
    if final is not None and block:
        raise StringError("INVALID_PAYLOAD", f"{FINAL_NEWLINE} and {NO_FINAL_NEWLINE} are for a whole-file /edit",
                          f"Send the whole file: /edit {_final_name(final)} {command_word(view.path)} and the body.")
    if block and view.symbols is not None:
        return edit_symbol(ctx, view, block, ctx.body, force, where)
    if block:
        if not is_markdown(view.path):
            raise StringError("BLOCK_NOT_FOUND", f"Block not found: #{block} in {view.path}",
                              "This document has no blocks.")
        return edit_block(ctx, view, block, ctx.body, force)
    return edit_whole(ctx, view, ctx.body, force, final)


def _final_name(final: bool) -> str:
    return FINAL_NEWLINE if final else NO_FINAL_NEWLINE


def _final_flag(args: list[str]) -> bool | None:
    """True for `--final-newline`, False for `--no-final-newline`, None (keep the file's) for neither."""
    given = {a for a in args if a in (FINAL_NEWLINE, NO_FINAL_NEWLINE)}
    if len(given) > 1:
        raise StringError("INVALID_PAYLOAD", f"Give {FINAL_NEWLINE} or {NO_FINAL_NEWLINE}, not both",
                          "--final-newline ends the file with a line break; --no-final-newline ends it without.")
    return None if not given else FINAL_NEWLINE in given
