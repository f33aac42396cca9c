"""What the server says about itself in `initialize`: name, instructions, capabilities. Kept free of the SDK so
that the stdio front (stdio_front.py) can answer `initialize` before the SDK is imported; server.py gives the SDK
the same values, and tests/dialects/mcp/test_mcp_lazy_start.py holds the two replies byte for byte equal."""

from __future__ import annotations

import json
from typing import Any

from stringsh import __version__

NAME = "stringsh"

INSTRUCTIONS = """\
stringsh: a workspace's files behind one engine. Paths are absolute inside an allowed directory \
(list_allowed_directories) or relative to the first one. Files keep their encoding, BOM and line endings; \
secret files are refused; every change is journalled and can be undone. A refusal reads \
`ERROR(CODE): message` with a hint line saying what to do next. The `string` tool runs any String Command \
(`/help` lists them); `undo` takes back this session's own changes (each connection has its own topic: \
open document, shell and undo history)."""

#: What the SDK announces for the handlers build_server registers (tools, resources with subscribe, log
#: messages, completion; no prompts: prompts.py).
CAPABILITIES: dict[str, Any] = {"completions": {}, "logging": {},
                                "resources": {"listChanged": False, "subscribe": True},
                                "tools": {"listChanged": False}}

#: The protocol revisions reached through the `initialize` handshake, oldest to newest (the SDK's
#: HANDSHAKE_PROTOCOL_VERSIONS): a client asking for another one is offered the newest.
HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")


def initialize_reply(request_id: int | str, requested: str) -> bytes:
    """The JSON-RPC line answering `initialize` as the SDK's stdio transport writes it (keys sorted as its
    models dump them, no spaces, UTF-8)."""
    version = requested if requested in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
    result = {"capabilities": CAPABILITIES, "instructions": INSTRUCTIONS, "protocolVersion": version,
              "serverInfo": {"name": NAME, "version": __version__}}
    line = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}, ensure_ascii=False,
                      separators=(",", ":"))
    return (line + "\n").encode()
