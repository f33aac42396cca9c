"""`stringsh tools`: the JSON tools (docs/json-tools.md), one request a line in, one reply a line out, flushed at once.

Every call is one request of the `tools` dialect in the topic `tools` (`Workspace.request`): journalled as such,
and one audit record `tools.<tool>` per call (its outcome, duration, paths and the engine operations it ran; the
command's first line for `bash`, never contents or output). Bad lines get a refusal and the loop goes on.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, BinaryIO

from stringsh.dialects.tools.protocol import (
    MAX_LINE,
    BadRequest,
    Request,
    encode_reply,
    error_reply,
    invalid,
    masked,
    ok_reply,
    parse_request,
)
from stringsh.dialects.tools.registry import TOOLS
from stringsh.dialects.tools.schema import check_args
from stringsh.errors import StringError
from stringsh.output import drop_the_rest
from stringsh.protocol.stdinput import standard_input

if TYPE_CHECKING:
    from collections.abc import Callable

    from stringsh.dispatcher import Dispatcher
    from stringsh.workspace import RequestContext, Workspace

#: The topic every call runs in (its undo history, its /changes rows, its audit records).
TOPIC = "tools"


def run(dispatcher: Dispatcher, options: object) -> int:
    del options
    stdin = standard_input()
    try:
        serve(dispatcher.workspace, stdin, sys.stdout.buffer)
    except BrokenPipeError:  # the agent went away: nothing left to answer (and no flush at exit to fail)
        drop_the_rest()
    return stdin.status(0)


def serve(ws: Workspace, readline: Callable[[int], bytes], stdout: BinaryIO) -> None:
    """Answer every line until end of input."""
    while True:
        line = readline(MAX_LINE + 1)
        if not line:
            return
        if len(line) > MAX_LINE and not line.endswith(b"\n"):
            while (rest := readline(1 << 20)) and not rest.endswith(b"\n"):
                pass  # the rest of an oversized line, read and dropped
            reply = error_reply(None, invalid(f"The request line is over {MAX_LINE} bytes; nothing was done.",
                                              "Send smaller requests (write a large file in parts with edit)."))
            with ws.request(TOPIC, "tools", topic=TOPIC) as refused:  # a request too, recorded by its code
                refused.fail(reply["code"])
            stdout.write(encode_reply(reply))
            stdout.flush()
            continue
        line = line.rstrip(b"\r\n")
        if not line.strip():
            continue  # blank lines between requests are allowed
        with ws.records_after_reply():  # the reply first, then its audit record
            stdout.write(encode_reply(answer(ws, line)))
            stdout.flush()


def answer(ws: Workspace, line: bytes) -> dict[str, Any]:
    """One line, one request of the `tools` dialect, refused or not (a bad line is recorded as `tools`); the reply
    masked (protocol.masked) as it leaves."""
    with ws.request(TOPIC, "tools", topic=TOPIC) as ctx:
        reply = _answer(ws, line, ctx)
        if not reply["ok"]:
            ctx.fail(reply["code"])
        return masked(reply, ws.redact_lines)


def _answer(ws: Workspace, line: bytes, ctx: RequestContext) -> dict[str, Any]:
    try:
        request = parse_request(line)
    except BadRequest as bad:
        return error_reply(bad.id, bad.error)
    try:
        return ok_reply(request.id, call(ws, request, ctx))
    except StringError as exc:
        return error_reply(request.id, exc)
    except Exception as exc:  # a bug must not end the loop: said, with its type, and the next line is served
        return error_reply(request.id, StringError("INTERNAL_ERROR", f"internal error: {type(exc).__name__}"))


def call(ws: Workspace, request: Request, ctx: RequestContext) -> dict[str, Any]:
    tool = TOOLS.get(request.tool)
    if tool is None:
        raise StringError("UNKNOWN_TOOL", f"Unknown tool: {request.tool}", f"Tools: {', '.join(TOOLS)}.")
    ctx.op = f"tools.{tool.name}"
    args = check_args(tool.name, tool.fields, request.args)
    paths, command = tool.summary(args)
    ctx.asked = paths
    ctx.command = " ".join([tool.name, *paths, *([command] if command else [])])  # what /changes names it by
    return tool.run(ws, args, TOPIC)
