"""Serving lines in-process as `stringsh mcp` serves stdio (stdio_front.py: the reader thread and the SDK), and the
SDK alone on the same lines, so that tests can compare the early replies with the SDK's byte for byte."""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import anyio

from stringsh.dialects.mcp.calls import make_calls
from stringsh.dialects.mcp.roots import STDIO
from stringsh.dialects.mcp.server import build_server
from stringsh.dialects.mcp.stdio_front import Front, Wire, run_lines, run_sdk
from stringsh.dispatcher import Dispatcher

INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n'


def initialize(request_id: int | str, version: str, *, roots: bool = False) -> bytes:
    params = {"protocolVersion": version, "capabilities": {"roots": {"listChanged": True}} if roots else {},
              "clientInfo": {"name": "lazy-client", "version": "1.0"}}
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params}).encode() + b"\n"


def tool(request_id: int, name: str, arguments: object, **extra: object) -> bytes:
    message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call",
               "params": {"name": name, "arguments": arguments, **extra}}
    return json.dumps(message).encode() + b"\n"


class Replies(io.BytesIO):
    """The server's stdout, which can be waited on for a number of reply lines."""

    def __init__(self) -> None:
        super().__init__()
        self.grew = threading.Condition()

    def flush(self) -> None:
        with self.grew:
            self.grew.notify_all()

    def wait(self, count: int) -> None:
        with self.grew:
            self.grew.wait_for(lambda: self.getvalue().count(b"\n") >= count, 30)

    def request_id(self, method: str) -> object:
        """The id of the server's request `method` to the client, once it came."""
        def asked() -> list[object]:
            return [message["id"] for message in map(json.loads, self.getvalue().splitlines())
                    if message.get("method") == method]

        with self.grew:
            self.grew.wait_for(asked, 30)
        return asked()[0]


class Counting(Front):
    """Counts the tool calls the front answered itself."""

    calls_answered = 0

    def take(self, line: bytes) -> bool:
        taken = super().take(line)
        self.calls_answered += taken and b'"tools/call"' in line
        return taken


def by_id(lines: list[bytes]) -> dict[object, bytes]:
    return {json.loads(line)["id"]: line for line in lines}


def sdk_alone(dispatcher: Dispatcher, lines: list[bytes], expected: int) -> list[bytes]:
    """The SDK's replies to `lines`, nothing answered early."""
    server = build_server(dispatcher.workspace, None, dispatcher)
    return anyio.run(run_lines, server, [line.decode() for line in lines], expected)


def front(dispatcher: Dispatcher, lines: list[bytes], expected: int, *, early: int = 0, settle: int = 0,
          roots: list[Path] | None = None) -> tuple[list[bytes], Counting]:
    """The lines written when the front serves `lines`: the SDK starts only once `early` replies came (they cannot
    be the SDK's); the lines after the first `settle` are sent once those were answered (as a client's first
    call), after answering the server's `roots/list` with `roots` if given (its request is a line written too);
    the wire closes once `expected` lines were written."""
    calls = make_calls(dispatcher.workspace, None, dispatcher)
    replies = Replies()
    served = Counting(calls, Wire(replies))

    def stdin() -> Iterator[bytes]:
        yield from lines[:settle]
        if roots is not None:
            listed = {"roots": [{"uri": folder.as_uri()} for folder in roots]}
            answer = {"jsonrpc": "2.0", "id": replies.request_id("roots/list"), "result": listed}
            yield json.dumps(answer).encode() + b"\n"
        replies.wait((roots is not None) + sum(b'"id"' in line for line in lines[:settle]))
        yield from lines[settle:]
        replies.wait(expected)

    reader = threading.Thread(target=served.read, args=(stdin(),), daemon=True)
    reader.start()
    replies.wait(early)
    try:
        anyio.run(run_sdk, build_server(dispatcher.workspace, dispatcher=dispatcher, calls=calls), served.lines(),
                  served.out)
    finally:
        calls.sessions.end(STDIO)
    reader.join(30)
    return replies.getvalue().splitlines(keepends=True), served
