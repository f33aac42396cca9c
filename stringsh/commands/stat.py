"""/stat: a path's type, size, mode and modification time (docs/file-operations.md), without reading it; a symbolic
link as a link, its target named only when it stays inside its root and is no secret."""

from __future__ import annotations

import time

from stringsh.commands.context import Context
from stringsh.commands.fsargs import parse
from stringsh.commands.registry import handler
from stringsh.protocol.response import Result

KINDS = {"dir": "folder", "file": "file", "other": "other (not a file, folder or link)"}
#: Why a link's target is not named (FileInfo.target_kind when `target` is None).
HIDDEN = {
    "outside": ", leading out of the workspace (not followed)",
    "missing": ", dangling (its target does not exist)",
    "hidden": ", target not shown (a secret or stringsh's own state)",
}


@handler("stat")
def stat_command(ctx: Context) -> Result:
    _, (path,) = parse(ctx, "stat", (), 1, "/stat path")
    workspace = ctx.dispatcher.workspace
    info = workspace.stat(path, follow=False, topic=ctx.session.topic)
    if info is None:
        raise workspace.not_found(path, workspace.relative(path))
    modified = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(info.mtime_ns / 1e9))
    if info.kind == "symlink":
        if info.target is None:
            to = HIDDEN[info.target_kind or "outside"]
        else:
            to = f" → {info.target} ({KINDS.get(info.target_kind or 'other', 'other').split(' ')[0]})"
        return Result(f"{info.rel}: symlink{to}, modified {modified}")
    kind = KINDS[info.kind]
    readonly = ", read-only" if not info.mode & 0o200 else ""
    return Result(f"{info.rel}: {kind}, {info.size} bytes, mode {info.mode:04o}{readonly}, modified {modified}")
