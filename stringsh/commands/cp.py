"""/cp: copy one file (bytes and mode) to a new path, or into a folder that exists; /undo deletes the copy."""

from __future__ import annotations

from stringsh.commands.context import Context
from stringsh.commands.fsargs import forget_seen, parse
from stringsh.commands.registry import handler
from stringsh.protocol.response import Result


@handler("cp")
def cp_command(ctx: Context) -> Result:
    flags, (source, dest) = parse(ctx, "cp", ("--force",), 2, "/cp [--force] from to")
    outcome = ctx.dispatcher.workspace.copy_file(source, dest, overwrite="--force" in flags,
                                                 topic=ctx.session.topic)
    forget_seen(ctx, outcome.dest)
    replaced = f", replaced the old {outcome.dest}" if outcome.replaced else ""
    return Result(f"Copied: {outcome.source} → {outcome.dest} ({outcome.size} bytes{replaced})")
