"""/close: forget the open document, its history, the session variables and the shell."""

from __future__ import annotations

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.protocol.response import Result


@handler("close")
def close(ctx: Context) -> Result:
    path = ctx.documents.current().path  # "No document open." when there is none
    ctx.documents.close_all()  # stop watching the files this topic had open
    ctx.session.close()
    return Result(f"Closed: {path}")
