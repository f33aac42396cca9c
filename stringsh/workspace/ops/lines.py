"""edit: replace lines start..end (1-based, inclusive) of a text file, keeping every other byte and the line endings.

Line numbers are those of the shared line model (textio: a line ends at `\\r\\n`, a lone `\\r` or `\\n`; a final
break starts no line), so they agree with `/edit`'s numbered view. The replacement is given with `\\n` endings;
its N-th line takes the ending the N-th replaced line had (a mixed file stays mixed), extra lines take the last
one, and the last line of the file keeps having no break when it had none. One journaled change, so `/undo`
puts the bytes back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import Step, StringError, hint, recovery
from stringsh.workspace.guards import NO_GUARD, Guard
from stringsh.workspace.ops.inplace import rewrite
from stringsh.workspace.ops.read import TextFile
from stringsh.workspace.textio import dominant_newline, line_spans, split_lines

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace


class LineEditRequest(NamedTuple):
    path: str
    start_line: int  # 1-based, inclusive
    end_line: int  # 1-based, inclusive
    replacement: str  # lines with `\n` endings; "" removes the lines
    topic: str = "main"
    #: `WholeFile(sha256)`: a file that changed since it was read is a CONFLICT (guards.py).
    guard: Guard = NO_GUARD


class LineEditOutcome(NamedTuple):
    rel: str
    change_id: int
    sha256: str
    text: str  # the file's new text (its own line endings)
    total_lines: int  # lines of the new file



def check_range(rel: str, start: int, end: int, total: int) -> None:
    """INVALID_TARGET for a range that does not count from 1 upward, or that ends past the file's last line."""
    if start < 1 or end < start:
        lo, hi = max(1, min(start, end)), max(1, start, end)
        raise StringError("INVALID_TARGET", f"Invalid line range: L{start}-L{end}",
                          f"Lines count from 1 and a range runs upward, as in {rel}:L{lo}-L{hi}.")
    if end > total:
        shown = f"L{start}" if end == start else f"L{start}-L{end}"
        raise StringError("INVALID_TARGET", f"Line range out of bounds: {rel}:{shown} (file has {total} lines)",
                          recovery(rel))


def splice_lines(text: str, start: int, end: int, replacement: str) -> str:
    """`text` with lines start..end (1-based, inclusive, already checked) replaced; see the module docstring."""
    spans = line_spans(text)
    first, last = spans[start - 1], spans[end - 1]
    endings = [text[s_end:full] for _s, s_end, full in spans[start - 1 : end]]
    fallback = next((e for e in reversed(endings) if e), "") or dominant_newline(text)
    new_lines = split_lines(replacement)
    out: list[str] = []
    for i, line in enumerate(new_lines):
        if i == len(new_lines) - 1:
            ending = endings[-1]  # the last replaced line's own ending ("" at the end of a file without one)
        elif i < len(endings) - 1:
            ending = endings[i] or fallback
        else:
            ending = fallback
        out.append(line + ending)
    new = "".join(out)
    if not new_lines and not endings[-1] and first[0] > 0:
        # the file's last lines went and the last had no break: the line before them loses its break, so the
        # file still ends without one
        before = text[: first[0]]
        return before[: -2 if before.endswith("\r\n") else -1]
    return text[: first[0]] + new + text[last[2] :]


def edit_lines(ws: Workspace, request: LineEditRequest) -> LineEditOutcome:
    """Replace the lines as one journaled change; needs `write` and `edit` (an in-place change of a file)."""

    def change(current: TextFile) -> str:
        check_range(current.rel, request.start_line, request.end_line, len(line_spans(current.text)))
        return splice_lines(current.text, request.start_line, request.end_line, request.replacement)

    def stale(rel: str) -> StringError:
        return StringError("CONFLICT", f"Refusing to edit {rel}: it changed since this topic read it.",
                           hint("Run ", Step("view", target=rel), " again for current line numbers, then retry."))

    done = rewrite(ws, request.path, request.topic, "edit", request.guard, change, stale)
    return LineEditOutcome(done.current.rel, done.change_id, done.sha256, done.text, len(line_spans(done.text)))
