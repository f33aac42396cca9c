"""/open of a file past the read limit (a shell spool, a big log): a window of its lines, never a refusal.

The file is streamed (workspace/ops/window.py), so memory stays bounded however large it is; the reply names the
lines shown, how many there are (or, past the scan's bound, at least how many), and the exact command that reads
on. A windowed file is not made the open
document (it cannot be indexed or edited whole); `--from N` and `--to M` choose the window.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.errors import Step, StringError, hint
from stringsh.hints import command_word, shell_command
from stringsh.protocol.response import Result, document_fields
from stringsh.render import plain
from stringsh.render.view import budget_from

if TYPE_CHECKING:
    from stringsh.documents.host import Caller


def split_to(args: list[str]) -> tuple[list[str], int | None]:
    """(the other words, the 1-based last line) from `… --to M`; words after `--` are never flags."""
    args = list(args)
    head = args[: args.index("--")] if "--" in args else args
    if "--to" not in head:
        return args, None
    i = args.index("--to")
    value = args[i + 1] if i + 1 < len(args) else ""
    if not value.isdigit() or int(value) < 1:
        raise StringError("INVALID_PAYLOAD", f"--to needs a line number (1 or more), got: {value or '(nothing)'}")
    del args[i : i + 2]
    return args, int(value)


def check_range(start: int, end: int | None) -> None:
    if end is not None and end <= start:
        raise StringError("INVALID_PAYLOAD", f"--to {end} is before --from {start + 1}",
                          f"Give --to {start + 1} or more, or leave it out.")


def uncounted(rel: str, line: int, counted: int) -> StringError:
    """Line `line` lies past the bytes a windowed read scans (a huge or sparse file): say how far it counted."""
    return StringError(
        "TOO_LARGE",
        f"Line {line} of {rel} is past what a windowed read scans (it stopped after {counted} lines)",
        hint("Read further in the shell: ", Step("shell", command=shell_command(f"tail -n +{line} {{rel}} | head",
                                                                                 rel=rel))),
    )


def window_budget(ctx: Caller, start: int, end: int | None) -> int:
    """Lines to show from `start`: up to `--to`, else the line budget (`{_max_lines}`; `off` still pages here)."""
    if end is not None:
        return end - start
    return budget_from(ctx.session.variables) or plain.DEFAULT_BUDGET


def open_window(ctx: Caller, rel: str, start: int, end: int | None) -> Result:
    """`Opened path` with lines start+1… and a `[window]` line: which lines, of how many, and how to read on."""
    from stringsh.workspace import WindowRequest

    workspace = ctx.documents.workspace
    count = window_budget(ctx, start, end)
    cache = ctx.documents.state.index_cache  # the line count of the file as it was, if it still is that file
    counted = cache.lookup_lines(rel)
    window = workspace.read_window(WindowRequest(rel, start, start + count, plain.MAX_CHARS, ctx.session.topic,
                                                 counted))
    if window.complete and window.identity and (counted is None or counted[0] != window.identity):
        cache.put_lines(window.rel, window.identity, window.total_lines, window.read_ns)
    total = window.total_lines
    if start and start >= total:
        if not window.complete:
            raise uncounted(rel, start + 1, window.total_lines)
        raise StringError("INVALID_PAYLOAD", f"{rel} has {total} lines; --from {start + 1} is past the end",
                          f"Read it from the start: /open {command_word(rel)}")
    last = start + len(window.lines)
    if window.complete:
        note = (f"[window] Lines {start + 1}-{last} of {total} ({window.size} bytes: past the read limit, so it is "
                "shown in windows).")
    else:
        note = (f"[window] Lines {start + 1}-{last} of a file of at least {total} lines ({window.size} bytes: past "
                "the read limit, so it is shown in windows; too large to count every line).")
    if window.cut_line:
        note += f" Line {last} is cut at {plain.MAX_CHARS} bytes; !cut -c or !fold in the shell shows all of it."
    if window.invalid_utf8:
        note += " Bytes that are not UTF-8 are shown as \\xNN."
    if window.nul:
        note += " NUL bytes are shown as \\x00."
    if window.next_line is not None:
        note += f" Read on: /open {command_word(rel)} --from {window.next_line + 1}"
    content = workspace.redact_lines("\n".join(window.lines))
    return Result(f"Opened {rel}", f"{content}\n\n{note}" if window.lines else note,
                  fields=document_fields(rel))
