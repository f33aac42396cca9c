"""/ls: list a folder, directories first; `-a` shows dot-files too (never secrets or `.stringsh/`)."""

from __future__ import annotations

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.documents.listing import format_listing, in_open_folder, list_directory
from stringsh.errors import StringError
from stringsh.protocol.response import Result

ALL = "-a"


@handler("ls")
def ls(ctx: Context) -> Result:
    args, hidden = ctx.args, False
    if any(a.startswith("-") for a in args):  # only then: `-c /ls` imports nothing more
        from stringsh.commands.targets import refuse_unknown_flags, split_dashes

        args, literal = split_dashes(ctx.args)
        hidden = ALL in args
        args = [a for a in args if a != ALL]
        refuse_unknown_flags(args, "ls", (ALL,))  # not in the table: `/help ls` stays as it was
        args += literal
    if len(args) > 1:
        raise StringError("INVALID_PAYLOAD", "Usage: /ls [path]", "Quote a path that contains spaces.")
    path = in_open_folder(ctx, args[0] if args else ".")
    rel, entries = list_directory(ctx.dispatcher.workspace, path, topic=ctx.session.topic)
    return format_listing(rel, entries, hidden=hidden)
