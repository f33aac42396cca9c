"""/mv: move or rename a file, a symlink (the link itself) or a folder; into a folder that exists. One change:
/undo puts everything back, folders, modes and links included."""

from __future__ import annotations

from stringsh.commands.context import Context
from stringsh.commands.fsargs import forget_seen, parse
from stringsh.commands.registry import handler
from stringsh.protocol.response import Result


@handler("mv")
def mv_command(ctx: Context) -> Result:
    flags, (source, dest) = parse(ctx, "mv", ("--force",), 2, "/mv [--force] from to")
    outcome = ctx.dispatcher.workspace.move(source, dest, overwrite="--force" in flags, topic=ctx.session.topic)
    forget_seen(ctx, outcome.source)
    forget_seen(ctx, outcome.dest)
    if outcome.kind == "dir":
        what = f" (folder, {outcome.files} file{'s' if outcome.files != 1 else ''})"
    elif outcome.kind == "symlink":
        what = " (symbolic link; its target is untouched)"
    else:
        what = f" (replaced the old {outcome.dest})" if outcome.replaced else ""
    return Result(f"Moved: {outcome.source} → {outcome.dest}{what}")
