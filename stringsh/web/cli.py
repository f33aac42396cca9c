"""`stringsh web [--root DIR] [--port N]`: serve the supervisor's page for one workspace on loopback.

The token is the one `stringsh mcp --http` takes (httpguard.load_token: `mcp-token` in the config folder, else a
fresh one); the page's address is printed once on stderr with the token in its fragment (`#token=…`), which a
browser never sends to a server, so no log holds it. The server stops on SIGTERM or SIGINT (httpstop.py), then the
caller closes the workspace.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from stringsh.dispatcher import Dispatcher
    from stringsh.options import Options

ADDRESS = "127.0.0.1"
#: The port served unless `--port` names another (the MCP server's examples use 8765).
PORT = 8766
#: Seconds a write under way gets to finish after SIGTERM.
GRACE = 5.0


def run_web(dispatcher: Dispatcher, options: Options) -> int:
    from importlib.util import find_spec

    missing = next((name for name in ("starlette", "uvicorn", "sse_starlette", "anyio") if find_spec(name) is None),
                   None)
    if missing is not None:
        print(f"stringsh: the web page needs the mcp extra ({missing} is missing): pip install 'stringsh[mcp]'",
              file=sys.stderr)
        return 2
    port = PORT if options.port is None else options.port
    if not 0 <= port < 65536:
        print(f"stringsh: ERROR(INVALID_PAYLOAD): --port wants a port from 0 to 65535, got {port}\n"
              f"Give one: stringsh web --port {PORT}", file=sys.stderr)
        return 2
    from stringsh.errors import StringError
    from stringsh.httpguard import listening_socket

    try:
        listening = listening_socket(ADDRESS, port, "Name another port: stringsh web --port 0 takes any free one")
    except StringError as exc:
        print(f"stringsh: ERROR({exc.code}): {exc.text}", file=sys.stderr)
        return 2
    return serve(dispatcher, listening)


def serve(dispatcher: Dispatcher, listening: socket.socket) -> int:
    import anyio
    import uvicorn

    from stringsh import serving
    from stringsh.httpguard import allowed_hosts, load_token, uvicorn_limits
    from stringsh.httpstop import GracefulServer, InFlight
    from stringsh.web.feed import Feed
    from stringsh.web.server import build

    stand_back()
    workspace = dispatcher.workspace
    port = listening.getsockname()[1]
    token, _ = load_token([folder for _, folder, _ in workspace.confiner.root_list()])
    feed = Feed(workspace)
    feed.start_reading()
    in_flight = InFlight()
    app = in_flight.wrap(build(workspace, token, allowed_hosts(ADDRESS, port), feed))
    config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=int(GRACE + 2),
                            **uvicorn_limits())
    print(f"stringsh: web serving {workspace.root}\n  open http://{ADDRESS}:{port}/#token={token}",
          file=sys.stderr, flush=True)

    def on_signal(name: str) -> None:
        print(f"stringsh: {name}: finishing the requests under way, then closing", file=sys.stderr, flush=True)

    serving.settle()
    server = GracefulServer(config, grace=GRACE, busy=in_flight, on_signal=on_signal, on_overdue=lambda: None,
                            after_overdue=0.0)
    anyio.run(lambda: server.serve(sockets=[listening]))
    return 0


def stand_back() -> None:
    """Let the agents' processes go first: SCHED_BATCH (every thread the server starts inherits it) takes the server
    off wakeup preemption, so its short bursts every poll never cut into an agent's request under way; its share of
    the CPU is unchanged, so a revert or undo it runs under the workspace lock is never starved. Where the system
    has no such policy, the server runs as it is."""
    with contextlib.suppress(AttributeError, OSError):
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
