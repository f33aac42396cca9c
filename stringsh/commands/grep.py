"""/grep PATTERN [path] [--regex] [-i] [--glob G] [-C N] [--max N] [--stats]: matching lines grouped by file;
without a path, in the folder `/open <folder>` entered, as /ls. `--stats` walks counting what was scanned and
skipped (slower: the counters come from the confined walk, not from rg)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.commands.searchreply import folder, limit_note, number, parse_options, plural, summary
from stringsh.documents.listing import in_open_folder
from stringsh.errors import StringError
from stringsh.escapes import shown_name
from stringsh.protocol.response import Result

if TYPE_CHECKING:
    from stringsh.workspace import GrepLine

SWITCHES = ("--regex", "-i", "--stats")
VALUED = ("--glob", "-C", "--max")
USAGE = "Usage: /grep PATTERN [path] [--regex] [-i] [--glob G] [-C N] [--max N] [--stats]"


@handler("grep")
def grep(ctx: Context) -> Result:
    args, options = parse_options(ctx.args, "grep", SWITCHES, VALUED)
    if not args or len(args) > 2:
        raise StringError("INVALID_PAYLOAD", USAGE, "Quote a pattern that contains spaces: /grep 'two words' src")
    query, path = args[0], in_open_folder(ctx, args[1] if len(args) > 1 else ".")
    workspace = ctx.dispatcher.workspace
    context = number(options, "-C", 0, 50) or 0
    most = number(options, "--max", 1, 1_000_000)
    glob = options.get("--glob")
    result = workspace.grep(query, path, regex="--regex" in options, glob=str(glob) if glob else None,
                            ignore_case="-i" in options, context=context, max_results=most,
                            topic=ctx.session.topic, stats="--stats" in options)
    found = f"{plural(result.matches, 'match')} in {plural(result.files, 'file')}"
    where = result.path if result.one_file else folder(result.path)
    message = f'Grep "{query}" in {where}: ' + (found if result.matches else "no matches")
    tail = [summary(found, result.traversal, too_large=result.skipped_too_large_files,
                    non_utf8=result.skipped_non_utf8_files)]
    note = limit_note(result.traversal, result.matches)
    if note:
        tail.append(note)
    body = format_lines(result.lines)
    return Result(message, (body + "\n\n" if body else "") + "\n".join(tail))


def format_lines(lines: tuple[GrepLine, ...]) -> str:
    """`path:line: text` for a match, `path-line- text` for context; `--` between gaps; a blank line between
    files."""
    out: list[str] = []
    previous: GrepLine | None = None
    for line in lines:
        if previous is not None and previous.path != line.path:
            out.append("")
        elif previous is not None and line.line != previous.line + 1:
            out.append("--")
        mark = ":" if line.match else "-"
        cut = f" [cut at {len(line.text.encode('utf-8', 'surrogatepass'))} bytes]" if line.line_truncated else ""
        out.append(f"{shown_name(line.path)}{mark}{line.line}{mark} {line.text}{cut}")
        previous = line
    return "\n".join(out)
