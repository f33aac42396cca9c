"""/rm: delete a file or a symlink (never what it points at); `-r` a folder and everything in it. One change:
/undo puts it all back. A delete the change journal cannot keep is refused unless `--force` (then no undo)."""

from __future__ import annotations

from stringsh.commands.context import Context
from stringsh.commands.fsargs import forget_seen, parse
from stringsh.commands.registry import handler
from stringsh.protocol.response import Result


@handler("rm")
def rm_command(ctx: Context) -> Result:
    flags, (path,) = parse(ctx, "rm", ("-r", "--force"), 1, "/rm [-r] [--force] path")
    outcome = ctx.dispatcher.workspace.delete(path, recursive="-r" in flags, force="--force" in flags,
                                              topic=ctx.session.topic)
    forget_seen(ctx, outcome.rel)
    if outcome.kind == "dir":
        what = (f" (folder, {outcome.files} file{'s' if outcome.files != 1 else ''}, "
                f"{outcome.folders} folder{'s' if outcome.folders != 1 else ''})")
    elif outcome.kind == "symlink":
        what = " (symbolic link; its target is untouched)"
    else:
        what = ""
    if outcome.change_id is None:
        what += "; beyond the change journal's keep limit, so /undo cannot put it back"
    return Result(f"Deleted: {outcome.rel}{what}")
