"""`/open path:L100-L200` and `/edit path:L100-L200`: a window of a file's lines, numbered with the file's own line
numbers, so an agent reads lines 9,000-9,100 of a long file without paging from the top.

Numbers are the shared line model's (`/edit`'s and `/replace path:L5`'s). A file past the read limit is streamed
(workspace/ops/window.py: memory stays bounded); a smaller one is read as `/edit` reads it. Secrets are masked line
for line. A window longer than the line budget ends with the same `Read on: … --from N` hint as other views
(`--from N` is an absolute line inside the range). The window does not become the topic's open document.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.documents.linerange import LineTarget, out_of_bounds
from stringsh.documents.masking import masked_note
from stringsh.errors import StringError, is_a_folder
from stringsh.hints import command_word
from stringsh.protocol.response import Result, document_fields
from stringsh.render import plain
from stringsh.render.view import budget_from, masked, numbered
from stringsh.workspace import split_lines

if TYPE_CHECKING:
    from stringsh.documents.host import Caller



def check_bounds(target: LineTarget, total: int, command: str) -> None:
    if target.end <= total:
        return
    if total == 0:
        raise out_of_bounds(target, total, f"{target.path} is empty.")
    lo = target.start if target.start <= total else max(1, total - (target.end - target.start))
    raise out_of_bounds(target, total, f"It ends at line {total}: {command} {LineTarget(target.path, lo, total).label}")


def cut_hint(kind: str, command: str, label: str, next_line: int) -> str:
    return f"[cut] Output limit of {kind} reached. Read on: {command} {label} --from {next_line}"


def range_view(ctx: Caller, target: LineTarget, rel: str, command: str, start: int) -> Result:
    """The reply of `/open` (command "/open") or `/edit` for lines `target` of the file at `rel`; `start` is
    `--from N` as 0-based (0: not given)."""
    documents = ctx.documents
    workspace = documents.workspace
    info = workspace.stat(rel)
    if info is None:
        raise workspace.not_found(rel, target.path)
    if info.is_dir:
        raise is_a_folder(target.path, f"Use /open {command_word(target.path)}")
    target = LineTarget(info.rel, target.start, target.end)
    first = start + 1 if start else target.start
    if not target.start <= first <= target.end:
        raise StringError("INVALID_PAYLOAD", f"--from {first} is outside {target.label}",
                          f"Give --from {target.start} to {target.end}, or leave it out.")
    budget = budget_from(ctx.session.variables)
    note = ""
    if info.size > workspace.policy.limits.max_read_bytes:
        text, total, next_line, kind, hid = _streamed(ctx, target, first, budget or plain.DEFAULT_BUDGET, command)
        if hid and command == "/edit":
            note = f"\n{masked_note(workspace)}"
    else:
        view = documents.read_for_edit(info.rel) if command == "/edit" else documents.load(info.rel, watch=False)
        if view.kind == "binary":
            raise StringError("BINARY_FILE", f"Binary file: {view.path} ({view.mime}, {view.size} bytes)")
        shown = masked(view, workspace.redact_lines)
        lines = split_lines(shown.doc.text)
        total = len(lines)
        check_bounds(target, total, command)
        text, index = numbered(lines[target.start - 1 : target.end], first_number=target.start,
                               start=first - target.start, budget=budget)
        next_line = None if index is None else target.start + index
        kind = f"{budget} lines" if budget and next_line == first + budget else f"{plain.MAX_CHARS} characters"
        if shown is not view and command == "/edit":
            note = f"\n{masked_note(workspace)}"
        documents.mark_seen(view)
    span = f"line {target.start}" if target.end == target.start else f"lines {target.start}-{target.end}"
    content = f"{text}\n\n({span} of {total})"
    if next_line is not None:
        content += "\n" + cut_hint(kind, command, target.label, next_line)
    header = f"[editing: {target.label}]" if command == "/edit" else f"Opened {target.label}"
    return Result(header, content + note, fields=document_fields(target.path))


def _streamed(ctx: Caller, target: LineTarget, first: int, budget: int,
              command: str) -> tuple[str, str, int | None, str, bool]:
    """(numbered text, total lines ("at least N" when the bounded scan stopped first), next line or None, what cut
    it, whether a secret was masked) for a file past the read limit."""
    from stringsh.documents.window import uncounted
    from stringsh.workspace import WindowRequest

    workspace = ctx.documents.workspace
    stop = min(target.end, first - 1 + budget)
    window = workspace.read_window(WindowRequest(target.path, first - 1, stop, plain.MAX_CHARS, ctx.session.topic))
    total = str(window.total_lines)
    if window.complete:
        check_bounds(target, window.total_lines, command)
    elif window.total_lines < stop:
        raise uncounted(target.path, max(first, window.total_lines + 1), window.total_lines)
    else:
        total = f"a file of at least {window.total_lines} lines"
    raw = "\n".join(window.lines)
    shown = workspace.redact_lines(raw)
    lines = shown.split("\n") if window.lines else []
    width = len(str(target.end))
    text = "\n".join(f"{first + i:>{width}} | {line}" for i, line in enumerate(lines))
    last = first - 1 + len(lines)
    next_line = last + 1 if last < target.end else None
    kind = f"{budget} lines" if len(lines) == budget else f"{plain.MAX_CHARS} characters"
    if window.cut_line:
        text += f" … (line cut at {plain.MAX_CHARS} characters)"
    if window.nul:
        text += " (NUL bytes are shown as \\x00)"
    return text, total, next_line, kind, shown != raw
