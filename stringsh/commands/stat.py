"""/stat: a path's type, size, mode and modification time (seed 003's `stat`), without reading it."""

from __future__ import annotations

import time

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.documents.fsargs import parse
from stringsh.errors import StringError
from stringsh.protocol.response import Result


@handler("stat")
def stat_command(ctx: Context) -> Result:
    _, (path,) = parse(ctx, "stat", (), 1, "/stat path")
    workspace = ctx.dispatcher.workspace
    info = workspace.stat(path, topic=ctx.session.topic)
    if info is None:
        raise StringError("NOT_FOUND", f"File not found: {workspace.relative(path)}", "/ls shows what is there.")
    modified = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(info.mtime_ns / 1e9))
    kind = "folder" if info.is_dir else "file"
    readonly = ", read-only" if not info.mode & 0o200 else ""
    return Result(f"{info.rel}: {kind}, {info.size} bytes, mode {info.mode:04o}{readonly}, modified {modified}")
