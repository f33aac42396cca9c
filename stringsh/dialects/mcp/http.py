"""`stringsh mcp --http HOST:PORT`: the SDK's streamable HTTP transport, behind two guards.

- Where it listens: a loopback address only (127.0.0.0/8, ::1, localhost), unless `--host ADDR` names another.
- Who may call: every request carries `Authorization: Bearer TOKEN`, on loopback too. A loopback port is open
  to every local process and user, and a browser page can reach it through DNS rebinding; the SDK's transport
  security (Host and Origin checked against the address served) stops the second, the token the first. The
  token is read from the user's config folder (`mcp-token` there, never from the workspace), or made fresh at
  start and printed on stderr. A request without it is refused with 401 before the SDK sees it. The token, the
  Host and Origin rule and the connection bounds are shared with `stringsh web` (stringsh/httpguard.py).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from stringsh import __version__
from stringsh.errors import StringError
from stringsh.httpguard import TOKEN_FILE, allowed_hosts, is_loopback, is_wildcard, load_token, require_token
from stringsh.userdirs import config_dir

if TYPE_CHECKING:

    from mcp.server.mcpserver import MCPServer
    from mcp.server.transport_security import TransportSecuritySettings

    from stringsh.dispatcher import Dispatcher
    from stringsh.options import Options


def parse_address(http: str, host: str | None) -> tuple[str, int]:
    """(address, port) from `--http [HOST:]PORT` and `--host`; INVALID_PAYLOAD or NOT_PERMITTED when unusable."""
    named, colon, port_text = http.rpartition(":")
    if not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise StringError("INVALID_PAYLOAD", f"--http wants HOST:PORT, got {http!r}",
                          "Give an address and a port: --http 127.0.0.1:8765")
    address = host or (named.strip("[]") if colon and named else "127.0.0.1")
    if host is None and not is_loopback(address):
        raise StringError("NOT_PERMITTED", f"{address} is not a loopback address",
                          f"Serve 127.0.0.1, or name the address with --host {address} (a bearer token is required).")
    return address, int(port_text)


def transport_security(address: str, port: int) -> TransportSecuritySettings:
    """Host and Origin must name the address served (DNS rebinding); a wildcard address (`--host 0.0.0.0`) is
    reached under names stringsh cannot know, so there the bearer token alone guards it."""
    from mcp.server.transport_security import TransportSecuritySettings

    if is_wildcard(address):
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    hosts = allowed_hosts(address, port)
    return TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=sorted(hosts),
                                     allowed_origins=sorted(f"http://{host}" for host in hosts))


def serve_http(server: MCPServer, options: Options, roots: list[Path], dispatcher: Dispatcher | None = None) -> int:
    """Serve until SIGTERM or SIGINT, then return 0 once the calls in flight finished (running.py); the caller
    closes the shells and the workspace."""
    import anyio
    import uvicorn

    from stringsh.dialects.mcp import bounds
    from stringsh.dialects.mcp.logjson import JsonLog
    from stringsh.dialects.mcp.running import (
        GRACE,
        SHELL_STOP,
        GracefulServer,
        InFlight,
        interrupt_shells,
        session_counter,
        with_health,
    )
    from stringsh.httpguard import listening_socket, uvicorn_limits

    log = JsonLog() if options.log_json else None
    try:
        address, port = parse_address(options.http or "", options.host)
    except StringError as exc:
        print(f"stringsh: ERROR({exc.code}): {exc.text}", file=sys.stderr)
        return 2
    try:
        limits = bounds.limits(options)
    except StringError as exc:
        print(f"stringsh: ERROR({exc.code}): {exc.text}", file=sys.stderr)
        return 2
    shown = f"[{address}]" if ":" in address else address
    security = transport_security(address, port)
    from stringsh.dialects.mcp import sessions
    from stringsh.dialects.mcp.events import RETRY_MS, SessionEvents, per_session

    app = server.streamable_http_app(transport_security=security, host=address,
                                     session_idle_timeout=sessions.IDLE_SECONDS, max_sessions=limits.sessions,
                                     event_store=SessionEvents(), retry_interval=RETRY_MS)
    per_session(server.session_manager)
    token, source = load_token(roots)
    where = f"http://{shown}:{port}/mcp"
    if log is not None and source is None:  # a log line must never hold the token, and a collector keeps every line
        log.event("error", "error", message="ERROR(AUTH_REQUIRED): --log-json needs the token in a file: "
                  "it is never logged", hint=f"Put a token of 16 or more characters in {config_dir() / TOKEN_FILE}")
        return 2
    try:
        other = 8766 if port == 8765 else 8765
        listening = listening_socket(address, port, f"Name another port: --http {shown}:{other}")
    except StringError as exc:
        if log is not None:
            log.event("error", "error", message=f"ERROR({exc.code}): {exc.message}", hint=exc.hint)
        else:
            print(f"stringsh: ERROR({exc.code}): {exc.text}", file=sys.stderr)
        return 2
    if log is not None:
        log.secret = token
        log.capture_logging()
        log.event("start", url=where, workspace=str(roots[0]) if roots else None, token_file=str(source),
                  version=__version__)
    elif source is None:
        print(f"stringsh: mcp serving {where}; token: {token}\n"
              f"  send it as 'Authorization: Bearer {token}' (or put one in {config_dir() / TOKEN_FILE})",
              file=sys.stderr, flush=True)
    else:
        print(f"stringsh: mcp serving {where}; token: from {source}", file=sys.stderr, flush=True)
    in_flight = InFlight()
    count = session_counter(server)
    guarded = with_health(require_token(bounds.session_cap(in_flight.wrap(app), count, limits.sessions), token),
                          token, count, str(roots[0]) if roots else "")
    if log is not None:
        guarded = log.requests(guarded)
    config = uvicorn.Config(guarded, host=address, port=port, log_level="warning", lifespan="on",
                            timeout_graceful_shutdown=int(GRACE + SHELL_STOP + 2),
                            **uvicorn_limits(limits.header_seconds, limits.keep_alive_seconds),
                            **({"log_config": None, "access_log": False} if log is not None else {}))

    def on_signal(name: str) -> None:
        from stringsh.dialects.mcp.listening import end_streams

        end_streams(server, from_thread=True)  # a listen stream is a POST that would hold the stop to the end
        if log is not None:
            log.event("shutdown", signal=name, sessions=session_counter(server)(), grace_s=GRACE)
        else:
            print(f"stringsh: {name}: finishing the calls in flight, then closing", file=sys.stderr, flush=True)

    def on_overdue() -> None:
        stopped = interrupt_shells(dispatcher) if dispatcher is not None else 0
        if log is not None:
            log.event("shutdown.overdue", "warning", interrupted_shells=stopped)

    from stringsh import serving

    serving.settle()
    graceful = GracefulServer(config, grace=GRACE, busy=in_flight, on_signal=on_signal, on_overdue=on_overdue,
                              after_overdue=SHELL_STOP)
    anyio.run(lambda: graceful.serve(sockets=[listening]))
    if log is not None:
        log.event("stop", status=0)
    return 0
