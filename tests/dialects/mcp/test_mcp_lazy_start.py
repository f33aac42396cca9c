"""The stdio front answers `initialize` before the SDK is imported (stdio_front.py): its early reply must be the
SDK's own reply byte for byte, for every protocol revision a client may ask for, and anything else must reach the
SDK untouched. The SDK's replies here come from the real server on in-memory pipes, through the same code that
serves stdio."""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Iterator

import anyio
import pytest
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from stringsh.dialects.mcp import identity
from stringsh.dialects.mcp.server import build_server
from stringsh.dialects.mcp.stdio_front import Wire, early_reply, run_wire
from stringsh.dispatcher import Dispatcher


@pytest.fixture(scope="module")
def dispatcher(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dispatcher]:
    root = tmp_path_factory.mktemp("lazy") / "ws"
    root.mkdir()
    made = Dispatcher(root)
    yield made
    made.close()


def initialize(request_id: int | str, version: str) -> bytes:
    params = {"protocolVersion": version, "capabilities": {"roots": {"listChanged": True}},
              "clientInfo": {"name": "lazy-client", "version": "1.0"}}
    return json.dumps({"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params}).encode() + b"\n"


class Replies(io.BytesIO):
    """The server's stdout, which can be waited on for a number of reply lines."""

    def __init__(self, expected: int) -> None:
        super().__init__()
        self.expected = expected
        self.grew = threading.Condition()

    def flush(self) -> None:
        with self.grew:
            self.grew.notify_all()

    def wait(self, count: int) -> None:
        with self.grew:
            self.grew.wait_for(lambda: self.getvalue().count(b"\n") >= count, 30)


def held_open(lines: tuple[bytes, ...], replies: Replies, *, settle: int = 0) -> Iterator[bytes]:
    """The client's stdin: `lines` (after the first `settle`, only once they were answered), then closed once
    every reply came (as a client closes after its answers)."""
    yield from lines[:settle]
    replies.wait(sum(b'"id"' in line for line in lines[:settle]))
    yield from lines[settle:]
    replies.wait(replies.expected)


def sdk_lines(dispatcher: Dispatcher, *lines: bytes, expected: int = 1,
              answered: tuple[int | str, bytes] | None = None) -> list[bytes]:
    """What the SDK's server writes for `lines`, as `stringsh mcp` serves them."""
    replies = Replies(expected)
    server = build_server(dispatcher.workspace, None, dispatcher)
    anyio.run(run_wire, server, lines[0], held_open(lines[1:], replies), Wire(replies, answered))
    return replies.getvalue().splitlines(keepends=True)


def test_handshake_versions_are_the_sdks() -> None:
    assert tuple(HANDSHAKE_PROTOCOL_VERSIONS) == identity.HANDSHAKE_VERSIONS


@pytest.mark.parametrize(("request_id", "version"), [(1, "2025-11-25"), ("init-7", "2024-11-05"), (0, "2025-03-26"),
                                                     (3, "2025-06-18"), (4, "2026-07-28"), (5, "1999-01-01")])
def test_early_reply_is_the_sdks_reply(dispatcher: Dispatcher, request_id: int | str, version: str) -> None:
    line = initialize(request_id, version)
    early = early_reply(line)
    assert early is not None and early[0] == request_id
    assert sdk_lines(dispatcher, line) == [early[1]]


def test_the_sdks_own_reply_is_dropped_and_the_rest_served(dispatcher: Dispatcher) -> None:
    line = initialize(1, "2025-11-25")
    rest = [b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n', b'{"jsonrpc":"2.0","id":2,"method":"ping"}\n']
    assert sdk_lines(dispatcher, line, *rest, answered=early_reply(line)) == [b'{"jsonrpc":"2.0","id":2,"result":{}}\n']


@pytest.mark.parametrize("line", [
    b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n',
    b'{"jsonrpc":"2.0","id":true,"method":"initialize","params":{}}\n',
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}\n',
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":'
    b'{"roots":1},"clientInfo":{"name":"x","version":"1"}}}\n',
    b'{"jsonrpc":"2.0","id":1.5,"method":"initialize"}\n',
    b"not json\n",
])
def test_anything_else_waits_for_the_sdk(line: bytes) -> None:
    assert early_reply(line) is None


def test_a_refused_initialize_gets_the_sdks_error(dispatcher: Dispatcher) -> None:
    """Not answered early, so the client gets the SDK's error, not a success the session never had."""
    line = (b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
            b'"capabilities":{}}}\n')
    assert early_reply(line) is None
    (reply,) = sdk_lines(dispatcher, line)
    assert json.loads(reply)["error"]["code"] == -32602
