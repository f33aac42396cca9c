"""An OPERATOR_CMD block sent as a request to the REPL, the plain loop, the daemon or `-c` (the hidden command
`operator-block`, which the request parser picks for a block): answered by the operator dialect in this topic, so
`/undo` and `/changes` here see what it changed. The reply is the usual `re: OPERATOR_CMD` line, then the
OPERATOR_RESULT block(s)."""

from __future__ import annotations

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.errors import StringError
from stringsh.protocol.response import Result


@handler("operator-block")
def operator_block(ctx: Context) -> Result:
    """The dialect sits above this layer: the dispatcher holds its answerer (`Dispatcher(blocks=…)`, which cli.py
    passes), and a dispatcher made without one says the blocks are not understood here."""
    blocks = ctx.dispatcher.blocks
    if blocks is None:
        raise StringError("COMMAND_UNSUPPORTED", "OPERATOR_CMD blocks are not answered here.",
                          "`stringsh operator` answers OPERATOR_CMD blocks; this loop runs String Commands only.")
    text, ok = blocks(ctx.dispatcher.workspace, ctx.body or "", ctx.session.operator_confirm, topic=ctx.session.topic)
    return Result(text, ok=ok)
