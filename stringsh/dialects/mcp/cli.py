"""`stringsh mcp`: serve the workspace as an MCP server on stdin/stdout, or with `--http HOST:PORT` over the
SDK's streamable HTTP transport (http.py: loopback only unless `--host` names another address, then a bearer
token)."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from stringsh.dispatcher import Dispatcher
    from stringsh.options import Options


def run(dispatcher: Dispatcher, options: Options) -> int:
    try:
        import anyio

        from stringsh.dialects.mcp.server import build_server
    except ImportError as exc:
        print(f"stringsh: the MCP server needs the mcp extra ({exc.name} is missing): pip install 'stringsh[mcp]'",
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
    workspace = dispatcher.workspace
    server = build_server(workspace, options.root or os.environ.get("PWD") or os.getcwd(), dispatcher)
    if options.http is None:
        anyio.run(server.run_stdio_async)
        return 0
    from stringsh.dialects.mcp.http import serve_http

    return serve_http(server, options, [folder for _, folder, _ in workspace.confiner.root_list()], dispatcher)
