"""`{_diff}`: a mutation reply followed by the line diff of what it changed, as String does (docs/string-commands.md).

Built once from the change journal, so every mutation (/write, /append, /edit, /undo, …) gets the same diff by
passing its change id: the previous bytes are the journal's, the new ones are read back from the file. The lines
are shown as workspace/textdiff.py masks them, so a diff never shows a secret, not even one the edit broke.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.errors import StringError
from stringsh.protocol.response import Result
from stringsh.workspace import decode, line_opcodes, shown_pair, split_lines

if TYPE_CHECKING:
    from stringsh.documents.host import Caller
    from stringsh.workspace import FileRow, Redactor, Workspace

DIFF_VARIABLE = "_diff"
CONTEXT_VARIABLE = "_diff_context"
MAX_LINES_VARIABLE = "_diff_max_lines"
DEFAULT_CONTEXT = 3
DEFAULT_MAX_LINES = 50
UNDO_NOTE = "Use /undo to revert."


def diff_on(variables: dict[str, str]) -> bool:
    return variables.get(DIFF_VARIABLE, "").strip().lower() in ("on", "true", "yes", "1")


def _setting(variables: dict[str, str], name: str, default: int) -> int:
    """A non-negative number, else the default (String's `resolveConfig`: invalid or negative falls back)."""
    raw = variables.get(name, "").strip()
    return int(raw) if raw.isdigit() else default


def with_diff(ctx: Caller, result: Result, change_id: int | None, *, undo_note: bool = True) -> Result:
    """`result` (naming `change_id` as the change it made) unchanged unless `{_diff}` is on; then
    `message\\n---\\n<diff>` (and `---` + the /undo note)."""
    variables = ctx.session.variables
    result.change = change_id
    if change_id is None or not diff_on(variables):
        return result
    context = _setting(variables, CONTEXT_VARIABLE, DEFAULT_CONTEXT)
    max_lines = _setting(variables, MAX_LINES_VARIABLE, DEFAULT_MAX_LINES) or DEFAULT_MAX_LINES
    diff = change_diff(ctx.documents.workspace, change_id, context=context, max_lines=max_lines)
    content = f"{diff}\n---\n{UNDO_NOTE}" if undo_note else diff
    return Result(result.message, content, ok=result.ok, code=result.code, fields=result.fields, change=change_id)


def change_diff(ws: Workspace, change_id: int, *, context: int = DEFAULT_CONTEXT,
                max_lines: int = DEFAULT_MAX_LINES) -> str:
    """The diff of every file of a change set; a `[path]` line heads each when there are several."""
    rows = ws.journal.files(change_id)
    parts = []
    for row in rows:
        try:
            if row.prev_size is not None:
                body = _appended(ws, row, context=context, max_lines=max_lines)
                parts.append(f"[{row.path}]\n{body}" if len(rows) > 1 else body)
                continue
            old = None if row.prev_sha is None else _text(ws.journal.blob(row.prev_sha), row.path)
            new = "" if row.new_sha is None else _current(ws, row.path, row.new_sha)
            body = format_diff(old, new, context=context, max_lines=max_lines, redactor=ws.redactor)
        except StringError as exc:
            body = f"(diff not shown: {exc.message})"
        parts.append(f"[{row.path}]\n{body}" if len(rows) > 1 else body)
    return "\n".join(parts)


def _appended(ws: Workspace, row: FileRow, *, context: int, max_lines: int) -> str:
    """An append keeps no copy of the file (ops/appending.py): its old text is the file's first `prev_size` bytes.
    Its undo cut the appended bytes off: their diff when the undo kept a copy, else how many lines went."""
    from stringsh.workspace import sha256

    size = row.prev_size or 0
    data = ws.read_bytes(row.path)
    if sha256(data) != row.new_sha:
        raise StringError("CONFLICT", "the file changed again since")
    if len(data) > size:  # the append itself (its undo left the file at the old length)
        return format_diff(_text(data[:size], row.path), _text(data, row.path), context=context,
                           max_lines=max_lines, redactor=ws.redactor)
    from stringsh.workspace import MissingBlob

    try:  # the undo kept the bytes it cut off when the file was small enough (ops/appending.py)
        before = ws.journal.blob(row.prev_sha) if row.prev_sha is not None else None
    except MissingBlob:
        before = None
    if before is not None:
        return format_diff(_text(before, row.path), _text(data, row.path), context=context, max_lines=max_lines,
                           redactor=ws.redactor)
    lines = len(split_lines(_text(data, row.path)))
    return f"(the lines appended after line {lines} were removed; an append keeps no copy of them)"


def _current(ws: Workspace, rel: str, expected_sha: str) -> str:
    """The file's text now; refused when it no longer holds the bytes the change wrote."""
    from stringsh.workspace import sha256

    data = ws.read_bytes(rel)
    if sha256(data) != expected_sha:
        raise StringError("CONFLICT", "the file changed again since")
    return _text(data, rel)


def _text(data: bytes, rel: str) -> str:
    return decode(data, rel)[0]


def format_diff(old: str | None, new: str, *, context: int = DEFAULT_CONTEXT,
                max_lines: int = DEFAULT_MAX_LINES, redactor: Redactor | None = None) -> str:
    """String's diff: `old new | kept`, `old   - deleted`, `    new + added` (numbers right-aligned to the widest),
    `...` between hunks, `N + text` for a new file, `(no changes)`, and at most `max_lines` lines. Lines are
    compared as they are and shown masked by `redactor` (workspace/textdiff.py)."""
    a, b = shown_pair(old or "", new, redactor, split_lines)
    if old is None:
        width = len(str(len(b.raw))) if b.raw else 1
        return _cut([f"{n:>{width}} + {b[n - 1]}" for n in range(1, len(b.raw) + 1)], len(b.raw), max_lines)
    if a.raw == b.raw:
        return "(no changes)"
    width = len(str(max(len(a.raw), len(b.raw), 1)))
    ops = _ops(a.raw, b.raw)
    changed = [i for i, op in enumerate(ops) if op[0] != " "]
    shown: set[int] = set()
    for i in changed:
        shown.update(range(max(0, i - context), min(len(ops), i + context + 1)))
    out: list[str] = []
    last = -1
    for i in sorted(shown):
        if last >= 0 and i != last + 1:
            out.append("...")
        last = i
        kind, o, n = ops[i]
        if kind == " ":
            out.append(f"{o:>{width}} {n:>{width}} | {a[o - 1]}")
        elif kind == "-":
            out.append(f"{o:>{width}} {'':>{width}} - {a[o - 1]}")
        else:
            out.append(f"{'':>{width}} {n:>{width}} + {b[n - 1]}")
    if len(out) <= max_lines:
        return "\n".join(out)
    count = sum(1 for line in out[:max_lines] if _is_change(line, width))
    return _cut(out, len(changed), max_lines, shown_changes=count)


def _is_change(line: str, width: int) -> bool:
    return line[2 * width + 1 : 2 * width + 4] in (" - ", " + ")


def _cut(out: list[str], changes: int, max_lines: int, *, shown_changes: int | None = None) -> str:
    if len(out) <= max_lines:
        return "\n".join(out)
    shown = max_lines if shown_changes is None else shown_changes
    return "\n".join([*out[:max_lines], f"... ({changes - shown} more lines changed, truncated at {max_lines} lines)"])


def _ops(a: list[str], b: list[str]) -> list[tuple[str, int, int]]:
    """(kind, old line number, new line number) for every line of both sides, in order."""
    ops: list[tuple[str, int, int]] = []
    for tag, i1, i2, j1, j2 in line_opcodes(a, b):
        if tag == "equal":
            ops.extend((" ", i1 + k + 1, j1 + k + 1) for k in range(i2 - i1))
            continue
        ops.extend(("-", i + 1, 0) for i in range(i1, i2))
        ops.extend(("+", 0, j + 1) for j in range(j1, j2))
    return ops
