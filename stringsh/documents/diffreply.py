"""`{_diff}`: a mutation reply followed by the line diff of what it changed, in String's format (upstream.md §1.11).

Built once from the change journal, so every mutation (/write, /append, /edit, /undo, …) gets the same diff by
passing its change id: the previous bytes are the journal's, the new ones are read back from the file. Both sides
are masked line for line (`Workspace.redact_lines`) before they are compared, so a diff never shows a secret.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.errors import StringError
from stringsh.protocol.response import Result
from stringsh.workspace.textio import decode, split_lines

if TYPE_CHECKING:
    from stringsh.documents.host import Caller
    from stringsh.workspace.engine import Workspace
    from stringsh.workspace.journal import FileRow

DIFF_VARIABLE = "_diff"
CONTEXT_VARIABLE = "_diff_context"
MAX_LINES_VARIABLE = "_diff_max_lines"
DEFAULT_CONTEXT = 3
DEFAULT_MAX_LINES = 50
UNDO_NOTE = "Use /undo to revert."
#: Past this many differing lines (after the common head and tail are cut) the middle is shown as replaced whole:
#: difflib's matcher is quadratic, and the reply is cut at `{_diff_max_lines}` anyway.
MATCH_LIMIT = 4000


def diff_on(variables: dict[str, str]) -> bool:
    return variables.get(DIFF_VARIABLE, "").strip().lower() in ("on", "true", "yes", "1")


def _setting(variables: dict[str, str], name: str, default: int) -> int:
    """A non-negative number, else the default (String's `resolveConfig`: invalid or negative falls back)."""
    raw = variables.get(name, "").strip()
    return int(raw) if raw.isdigit() else default


def with_diff(ctx: Caller, result: Result, change_id: int | None, *, undo_note: bool = True) -> Result:
    """`result` unchanged unless `{_diff}` is on; then `message\\n---\\n<diff>` (and `---` + the /undo note)."""
    variables = ctx.session.variables
    if change_id is None or not diff_on(variables):
        return result
    context = _setting(variables, CONTEXT_VARIABLE, DEFAULT_CONTEXT)
    max_lines = _setting(variables, MAX_LINES_VARIABLE, DEFAULT_MAX_LINES) or DEFAULT_MAX_LINES
    diff = change_diff(ctx.documents.workspace, change_id, context=context, max_lines=max_lines)
    content = f"{diff}\n---\n{UNDO_NOTE}" if undo_note else diff
    return Result(result.message, content, ok=result.ok, code=result.code, fields=result.fields)


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
            old = None if row.prev_sha is None else _text(ws, ws.journal.blob(row.prev_sha), row.path)
            new = "" if row.new_sha is None else _current(ws, row.path, row.new_sha)
            body = format_diff(old, new, context=context, max_lines=max_lines)
        except StringError as exc:
            body = f"(diff not shown: {exc.message})"
        parts.append(f"[{row.path}]\n{body}" if len(rows) > 1 else body)
    return "\n".join(parts)


def _appended(ws: Workspace, row: FileRow, *, context: int, max_lines: int) -> str:
    """An append keeps no copy of the file (ops/appending.py): its old text is the file's first `prev_size` bytes.
    Its undo cut the appended bytes off, and they are not kept: say how many lines went."""
    from stringsh.workspace.atomic import sha256

    size = row.prev_size or 0
    data = ws.read_bytes(row.path)
    if sha256(data) != row.new_sha:
        raise StringError("CONFLICT", "the file changed again since")
    if len(data) > size:  # the append itself (its undo left the file at the old length)
        return format_diff(_text(ws, data[:size], row.path), _text(ws, data, row.path), context=context,
                           max_lines=max_lines)
    lines = len(split_lines(_text(ws, data, row.path)))
    return f"(the lines appended after line {lines} were removed; an append keeps no copy of them)"


def _current(ws: Workspace, rel: str, expected_sha: str) -> str:
    """The file's text now, masked; refused when it no longer holds the bytes the change wrote."""
    from stringsh.workspace.atomic import sha256

    data = ws.read_bytes(rel)
    if sha256(data) != expected_sha:
        raise StringError("CONFLICT", "the file changed again since")
    return _text(ws, data, rel)


def _text(ws: Workspace, data: bytes, rel: str) -> str:
    text, _, _ = decode(data, rel)
    return ws.redact_lines(text)



def format_diff(old: str | None, new: str, *, context: int = DEFAULT_CONTEXT,
                max_lines: int = DEFAULT_MAX_LINES) -> str:
    """String's diff: `old new | kept`, `old   - deleted`, `    new + added` (numbers right-aligned to the widest),
    `...` between hunks, `N + text` for a new file, `(no changes)`, and at most `max_lines` lines."""
    b = split_lines(new)
    if old is None:
        width = len(str(len(b))) if b else 1
        return _cut([f"{n:>{width}} + {line}" for n, line in enumerate(b, 1)], len(b), max_lines)
    a = split_lines(old)
    if a == b:
        return "(no changes)"
    width = len(str(max(len(a), len(b), 1)))
    ops = _ops(a, b)
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
        kind, o, n, text = ops[i]
        if kind == " ":
            out.append(f"{o:>{width}} {n:>{width}} | {text}")
        elif kind == "-":
            out.append(f"{o:>{width}} {'':>{width}} - {text}")
        else:
            out.append(f"{'':>{width}} {n:>{width}} + {text}")
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


def line_opcodes(a: list[str], b: list[str]) -> list[tuple[str, int, int, int, int]]:
    """difflib's opcodes over the whole lists: the common head and tail are trimmed first, and a middle of more
    than MATCH_LIMIT lines counts as replaced whole (difflib is quadratic in it)."""
    head = 0
    while head < len(a) and head < len(b) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < len(a) - head and tail < len(b) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    mid_a, mid_b = a[head : len(a) - tail], b[head : len(b) - tail]
    ops: list[tuple[str, int, int, int, int]] = [("equal", 0, head, 0, head)] if head else []
    if len(mid_a) + len(mid_b) > MATCH_LIMIT or not mid_a or not mid_b:
        if mid_a or mid_b:
            ops.append(("replace", head, head + len(mid_a), head, head + len(mid_b)))
    else:
        import difflib  # only when a diff is asked for

        matcher = difflib.SequenceMatcher(None, mid_a, mid_b, autojunk=False)
        ops.extend((tag, head + i1, head + i2, head + j1, head + j2) for tag, i1, i2, j1, j2 in matcher.get_opcodes())
    if tail:
        ops.append(("equal", len(a) - tail, len(a), len(b) - tail, len(b)))
    return ops


def _ops(a: list[str], b: list[str]) -> list[tuple[str, int, int, str]]:
    """(kind, old line number, new line number, text) for every line of both sides, in order."""
    ops: list[tuple[str, int, int, str]] = []
    for tag, i1, i2, j1, j2 in line_opcodes(a, b):
        if tag == "equal":
            ops.extend((" ", i1 + k + 1, j1 + k + 1, a[i1 + k]) for k in range(i2 - i1))
            continue
        ops.extend(("-", i + 1, 0, a[i]) for i in range(i1, i2))
        ops.extend(("+", 0, j + 1, b[j]) for j in range(j1, j2))
    return ops
