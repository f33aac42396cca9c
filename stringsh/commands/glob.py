"""/glob PATTERN [path] [--stats] [--sort path|mtime]: files whose path below the folder matches the pattern, in path
order (as `rg --sort path`), or newest first with `--sort mtime`; without a path, from the folder `/open <folder>`
entered, as /ls. `--stats` walks counting what was scanned and skipped."""

from __future__ import annotations

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.commands.searchreply import folder, limit_note, parse_options, plural, summary
from stringsh.documents.listing import in_open_folder
from stringsh.errors import StringError
from stringsh.escapes import shown_names
from stringsh.protocol.response import Result

#: --sort's values and how the reply's first line says each.
ORDERS = {"path": "by path", "mtime": "newest first"}


@handler("glob")
def glob(ctx: Context) -> Result:
    args, options = parse_options(ctx.args, "glob", ("--stats",), ("--sort",))
    if not args or len(args) > 2:
        raise StringError("INVALID_PAYLOAD", "Usage: /glob PATTERN [path] [--stats] [--sort path|mtime]",
                          "Quote a pattern or path that contains spaces: /glob '**/*.py' src")
    order = str(options.get("--sort", "path"))
    if order not in ORDERS:
        raise StringError("INVALID_PAYLOAD", f"--sort takes path or mtime, got: {order}",
                          "For example --sort mtime (newest first); by path is the default.")
    pattern, path = args[0], in_open_folder(ctx, args[1] if len(args) > 1 else ".")
    workspace = ctx.dispatcher.workspace
    result = workspace.glob(pattern, path, topic=ctx.session.topic, stats="--stats" in options, sort=order)
    where = folder(result.path)
    lines = shown_names([match.rel for match in result.matches])
    found = plural(result.total, "file")
    message = f"Glob {pattern} in {where}: " + (f"{found}, {ORDERS[order]}" if result.total else "no files")
    tail = [summary(found, result.traversal)]
    if result.truncated:
        first = "newest" if order == "mtime" else "first"
        tail.append(f"Showing the {first} {len(result.matches)} of {result.total} (the policy's max_results): "
                    "narrow the pattern or the folder.")
    note = limit_note(result.traversal, len(result.matches))
    if note:
        tail.append(note)
    content = "\n".join(lines) + ("\n\n" if lines else "") + "\n".join(tail)
    return Result(message, content)
