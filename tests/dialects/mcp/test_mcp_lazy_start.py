"""The stdio front answers `initialize` and `tools/list` while the SDK is still being imported (stdio_front.py):
each early reply must be the SDK's own reply byte for byte, for every protocol revision a client may ask for, and
anything else must reach the SDK untouched. The SDK's replies come from the real server on in-memory pipes."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from stringsh.dialects.mcp import identity, toollist
from stringsh.dialects.mcp.stdio_front import early_reply, tools_list_id
from stringsh.dispatcher import Dispatcher
from tests.dialects.mcp.wire import INITIALIZED, by_id, front, initialize, sdk_alone

LIST = b'{"jsonrpc":"2.0","id":"t-1","method":"tools/list"}\n'
PING = b'{"jsonrpc":"2.0","id":2,"method":"ping"}\n'


@pytest.fixture(scope="module")
def dispatcher(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dispatcher]:
    root = tmp_path_factory.mktemp("lazy") / "ws"
    root.mkdir()
    made = Dispatcher(root)
    yield made
    made.close()


def test_handshake_versions_are_the_sdks() -> None:
    assert tuple(HANDSHAKE_PROTOCOL_VERSIONS) == identity.HANDSHAKE_VERSIONS


@pytest.mark.parametrize(("request_id", "version"), [(1, "2025-11-25"), ("init-7", "2024-11-05"), (0, "2025-03-26"),
                                                     (3, "2025-06-18"), (4, "2026-07-28"), (5, "1999-01-01")])
def test_early_initialize_is_the_sdks_reply(dispatcher: Dispatcher, request_id: int | str, version: str) -> None:
    line = initialize(request_id, version, roots=True)
    early = early_reply(line)
    assert early is not None and early[0] == request_id
    assert sdk_alone(dispatcher, [line], 1) == [early[1]]


@pytest.mark.parametrize("version", HANDSHAKE_PROTOCOL_VERSIONS)
def test_tools_json_is_the_sdks_tool_list(dispatcher: Dispatcher, version: str) -> None:
    """If this fails after a tool changed: python -m stringsh.dialects.mcp.toollist writes tools.json again."""
    replies = sdk_alone(dispatcher, [initialize(1, version), INITIALIZED, LIST], 2)
    assert replies[1] == toollist.reply("t-1")
    assert toollist.sdk_result(version) == toollist.result_bytes()


def test_initialize_and_tools_list_are_answered_before_the_sdk_serves(dispatcher: Dispatcher) -> None:
    """The SDK starts only once both replies came; its own reply to `initialize` is dropped, the ping is its."""
    lines = [initialize(1, "2025-11-25"), INITIALIZED, LIST, PING]
    replies, _ = front(dispatcher, lines, 3, early=2)
    assert replies == [early_reply(lines[0])[1], toollist.reply("t-1"),  # type: ignore[index]
                       b'{"jsonrpc":"2.0","id":2,"result":{}}\n']


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


@pytest.mark.parametrize("line", [
    b'{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"cursor":"x"}}\n',
    b'{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{}}}\n',
    b'{"jsonrpc":"2.0","id":true,"method":"tools/list"}\n',
    b'{"jsonrpc":"2.0","method":"tools/list"}\n',
])
def test_a_tool_list_asked_otherwise_waits_for_the_sdk(line: bytes) -> None:
    assert tools_list_id(line) is None


def test_a_refused_initialize_gets_the_sdks_error(dispatcher: Dispatcher) -> None:
    """Not answered early, so the client gets the SDK's error, not a success the session never had; and with no
    handshake nothing else is answered early either."""
    line = (b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
            b'"capabilities":{}}}\n')
    replies, served = front(dispatcher, [line, LIST], 2)
    assert json.loads(by_id(replies)[1])["error"]["code"] == -32602
    assert served.shortcut is None and "t-1" in by_id(replies)
