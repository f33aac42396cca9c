"""/ls: list a folder, directories first."""

from __future__ import annotations

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.documents.listing import format_listing, list_directory
from stringsh.errors import StringError
from stringsh.protocol.response import Result


@handler("ls")
def ls(ctx: Context) -> Result:
    if len(ctx.args) > 1:
        raise StringError("INVALID_PAYLOAD", "Usage: /ls [path]", "Quote a path that contains spaces.")
    path = ctx.args[0] if ctx.args else "."
    rel, entries = list_directory(ctx.dispatcher.workspace, path, topic=ctx.session.topic)
    return format_listing(rel, entries)
