"""`stringsh mcp`: serve the workspace as an MCP server on stdin/stdout, or with `--http HOST:PORT` over the
SDK's streamable HTTP transport (http.py: loopback only unless `--host` names another address, then a bearer
token)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

    from stringsh.dispatcher import Dispatcher
    from stringsh.options import Options


def run(dispatcher: Dispatcher, options: Options) -> int:
    from importlib.util import find_spec

    if find_spec("mcp") is None or find_spec("anyio") is None:  # said before any reply, not after `initialize`
        missing = "mcp" if find_spec("mcp") is None else "anyio"
        print(f"stringsh: the MCP server needs the mcp extra ({missing} is missing): pip install 'stringsh[mcp]'",
              file=sys.stderr)
        return 2
    if options.host is not None and options.http is None:
        print("stringsh: ERROR(INVALID_PAYLOAD): --host only applies to --http\n"
              "Give the port too: stringsh mcp --http ADDR:PORT --host ADDR", file=sys.stderr)
        return 2
    if options.log_json and options.http is None:
        print("stringsh: ERROR(INVALID_PAYLOAD): --log-json only applies to --http\n"
              "Serve HTTP: stringsh mcp --http 127.0.0.1:PORT --log-json (on stdio, stderr is the client's)",
              file=sys.stderr)
        return 2
    from stringsh.dialects.mcp.calls import make_calls
    from stringsh.documents.indexwish import in_background

    in_background(dispatcher.workspace.root)  # the symbol index, from the first symbol search on

    workspace = dispatcher.workspace
    # over HTTP each session's topic starts its shell when the session begins; on stdio the one client's first
    # command starts it, so the start-up (the SDK's import) has the machine to itself
    dispatcher.warm_shells = options.http is not None
    calls = make_calls(workspace, options.root or os.environ.get("PWD") or os.getcwd(), dispatcher)

    def build() -> MCPServer:
        from stringsh.dialects.mcp.server import build_server

        return build_server(workspace, dispatcher=dispatcher, calls=calls)

    if options.http is None:
        from stringsh.dialects.mcp.stdio_front import serve

        return serve(calls, build)
    try:
        server = build()
    except ImportError as exc:
        print(f"stringsh: the MCP server needs the mcp extra ({exc.name} is missing): pip install 'stringsh[mcp]'",
              file=sys.stderr)
        return 2
    from stringsh.dialects.mcp.http import serve_http

    return serve_http(server, options, [folder for _, folder, _ in workspace.confiner.root_list()], dispatcher)
