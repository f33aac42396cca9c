"""The `tools/list` result as the SDK writes it, kept in tools.json so that the stdio front can answer `tools/list`
while the SDK is still being imported (a client lists the tools first thing, before any call).

tests/dialects/mcp/test_mcp_lazy_start.py compares the file with the SDK's own reply for every handshake protocol
revision; after changing a tool (its name, arguments, description or annotations) write it again with
`python -m stringsh.dialects.mcp.toollist`."""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path

FILE = Path(__file__).with_name("tools.json")


@cache
def result_bytes() -> bytes:
    """The `result` member of the SDK's reply, byte for byte."""
    return FILE.read_bytes().rstrip(b"\n")


def reply(request_id: int | str) -> bytes:
    """The whole reply line to a `tools/list` request without params."""
    head = json.dumps({"jsonrpc": "2.0", "id": request_id}, ensure_ascii=False, separators=(",", ":"))
    return head[:-1].encode() + b',"result":' + result_bytes() + b"}\n"


def sdk_result(version: str) -> bytes:
    """The SDK's `tools/list` result for a client of `version`, from the real server on in-memory pipes."""
    import tempfile

    import anyio

    from stringsh.dialects.mcp.server import build_server
    from stringsh.dialects.mcp.stdio_front import run_lines
    from stringsh.dispatcher import Dispatcher

    hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
             "params": {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "list", "version": "1"}}}
    lines = [json.dumps(hello), '{"jsonrpc":"2.0","method":"notifications/initialized"}',
             '{"jsonrpc":"2.0","id":2,"method":"tools/list"}']
    with tempfile.TemporaryDirectory() as folder:
        dispatcher = Dispatcher(Path(folder))
        try:
            replies = anyio.run(run_lines, build_server(dispatcher.workspace, None, dispatcher), lines, 2)
        finally:
            dispatcher.close()
    (answer,) = [line for line in replies if line.startswith(b'{"jsonrpc":"2.0","id":2,')]
    return answer[len(b'{"jsonrpc":"2.0","id":2,"result":'):-2]


if __name__ == "__main__":
    FILE.write_bytes(sdk_result(sys.argv[1] if len(sys.argv) > 1 else "2025-11-25") + b"\n")
    print(f"wrote {FILE}")
