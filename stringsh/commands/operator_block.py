"""An OPERATOR_CMD block sent as a request to the REPL, the plain loop, the daemon or `-c` (the hidden command
`operator-block`, which the request parser picks for a block): answered by the operator dialect in this topic, so
`/undo` and `/changes` here see what it changed. The reply is the usual `re: OPERATOR_CMD` line, then the
OPERATOR_RESULT block(s)."""

from __future__ import annotations

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.protocol.response import Result


@handler("operator-block")
def operator_block(ctx: Context) -> Result:
    from stringsh.dialects.operator.serve import answer_text, terminal_confirmer

    workspace = ctx.dispatcher.workspace
    confirm = ctx.session.operator_confirm or terminal_confirmer(workspace)
    text, ok = answer_text(workspace, ctx.body or "", confirm, topic=ctx.session.topic)
    return Result(text, ok=ok)
