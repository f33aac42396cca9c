"""/mkdir: make a folder; `-p` makes its missing parents too and accepts one that exists (as `mkdir -p`)."""

from __future__ import annotations

from stringsh.commands.context import Context
from stringsh.commands.fsargs import parse
from stringsh.commands.registry import handler
from stringsh.protocol.response import Result


@handler("mkdir")
def mkdir_command(ctx: Context) -> Result:
    flags, (path,) = parse(ctx, "mkdir", ("-p",), 1, "/mkdir [-p] path")
    parents = "-p" in flags
    outcome = ctx.dispatcher.workspace.mkdir(path, create_parents=parents, ignore_existing=parents,
                                             topic=ctx.session.topic)
    if not outcome.created:
        return Result(f"Folder exists: {outcome.rel} (nothing changed)")
    extra = f" (and {', '.join(outcome.made[:-1])})" if len(outcome.made) > 1 else ""
    return Result(f"Created folder: {outcome.rel}{extra}")
