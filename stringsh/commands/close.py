"""/close: forget the open document, its history, the session variables and the shell."""

from __future__ import annotations

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.errors import StringError
from stringsh.protocol.response import Result


@handler("close")
def close(ctx: Context) -> Result:
    document = ctx.session.document
    if document is None:
        raise StringError("INVALID_TARGET", "No document open.", "Open one with /open <path>.")
    path = getattr(document, "path", str(document))
    for view in [document, *ctx.session.history]:
        closer = getattr(view, "close", None)
        if callable(closer):
            closer()  # stop watching the files this topic had open
    ctx.session.close()
    return Result(f"Closed: {path}")
