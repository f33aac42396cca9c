"""`stringsh tools`: seed 001's JSON tools on stdin/stdout, one request a line, one reply a line, flushed at once.

Every call runs in the topic `tools`, journalled and audited as the `tools` front end (`Workspace.speaking`),
plus one audit record `tools.<tool>` per call (its outcome, duration and a summary of the request: the path or
the command's first line, never contents or output). Bad lines get a refusal and the loop goes on.
"""

from __future__ import annotations

import os
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

if TYPE_CHECKING:
    from stringsh.dispatcher import Dispatcher
    from stringsh.workspace.engine import Workspace

#: The topic every call runs in (its undo history, its /changes rows, its audit records).
TOPIC = "tools"


def run(dispatcher: Dispatcher, options: object) -> int:
    del options
    try:
        serve(dispatcher.workspace, sys.stdin.buffer, sys.stdout.buffer)
    except BrokenPipeError:  # the agent went away: nothing left to answer (and no flush at exit to fail)
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def serve(ws: Workspace, stdin: BinaryIO, stdout: BinaryIO) -> None:
    """Answer every line until end of input."""
    while True:
        line = stdin.readline(MAX_LINE + 1)
        if not line:
            return
        if len(line) > MAX_LINE and not line.endswith(b"\n"):
            while (rest := stdin.readline(1 << 20)) and not rest.endswith(b"\n"):
                pass  # the rest of an oversized line, read and dropped
            reply = error_reply(None, invalid(f"The request line is over {MAX_LINE} bytes; nothing was done.",
                                              "Send smaller requests (write a large file in parts with edit)."))
        else:
            line = line.rstrip(b"\r\n")
            if not line.strip():
                continue  # blank lines between requests are allowed
            reply = answer(ws, line)
        stdout.write(encode_reply(reply))
        stdout.flush()


def answer(ws: Workspace, line: bytes) -> dict[str, Any]:
    """The reply to one request line, masked (protocol.masked) as it leaves."""
    return masked(_answer(ws, line), ws.redact_lines)


def _answer(ws: Workspace, line: bytes) -> dict[str, Any]:
    try:
        request = parse_request(line)
    except BadRequest as bad:
        return error_reply(bad.id, bad.error)
    try:
        return ok_reply(request.id, call(ws, request))
    except StringError as exc:
        return error_reply(request.id, exc)
    except Exception as exc:  # a bug must not end the loop: said, with its type, and the next line is served
        return error_reply(request.id, StringError("INTERNAL_ERROR", f"internal error: {type(exc).__name__}"))


def call(ws: Workspace, request: Request) -> dict[str, Any]:
    tool = TOOLS.get(request.tool)
    if tool is None:
        raise StringError("UNKNOWN_TOOL", f"Unknown tool: {request.tool}", f"Tools: {', '.join(TOOLS)}.")
    args = check_args(tool.name, tool.fields, request.args)
    paths, command = tool.summary(args)
    request = " ".join([tool.name, *paths, *([command] if command else [])])  # what /changes names the change by
    with ws.speaking(TOPIC, command=request), ws.audited(f"tools.{tool.name}", paths, topic=TOPIC, command=command):
        return tool.run(ws, args, TOPIC)
