"""The `logging` capability: each refusal (a tool call answered `isError`) and each warning stringsh logs while
serving a call reaches the client as `notifications/message`, at or above the level it asked for.

On the handshake protocols (up to 2025-11-25) a connection hears nothing until it sends `logging/setLevel`
(the spec lets a server choose; unasked log lines would only be noise in an agent's context). On 2026-07-28,
where `logging/setLevel` is gone, the SDK delivers what each request opted into with its `_meta` log level."""

from __future__ import annotations

import logging
import warnings
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Final

from mcp.shared.exceptions import MCPDeprecationWarning
from mcp_types import EmptyResult, SetLevelRequestParams, TextContent

if TYPE_CHECKING:
    from mcp.server.context import ServerRequestContext
    from mcp.server.mcpserver import Context, MCPServer
    from mcp_types import CallToolResult

    from stringsh.dialects.mcp.calls import Calls

#: Where a connection keeps the level it asked for (the SDK's per-connection scratch state).
LEVEL = "stringsh.logging.level"
#: The spec's levels, least severe first (RFC 5424).
LEVELS: Final = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
#: Python's logging levels as the spec names them.
FROM_PYTHON: Final = {logging.DEBUG: "debug", logging.INFO: "info", logging.WARNING: "warning",
                      logging.ERROR: "error", logging.CRITICAL: "critical"}
#: The logger name notifications carry.
LOGGER = "stringsh"


def wanted(ctx: ServerRequestContext[Any, Any], level: str) -> bool:
    """Whether this connection asked for messages of `level`: on the handshake protocols only after
    `logging/setLevel`, at or above its level; on 2026-07-28 the SDK filters by the request's own opt-in."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    connection = ctx.session._connection  # the SDK keeps per-connection state there
    if connection.protocol_version in MODERN_PROTOCOL_VERSIONS:
        return True
    threshold = connection.state.get(LEVEL)
    return threshold is not None and LEVELS.index(level) >= LEVELS.index(threshold)


async def send(context: Context[Any, Any], level: str, data: Any) -> None:
    """One `notifications/message` on the request's stream, when the connection wants `level`; advisory: a
    failure to send never fails the call."""
    ctx = context.request_context
    if not wanted(ctx, level):
        return
    try:
        await context.log(level, data, logger_name=LOGGER)  # type: ignore[arg-type]
    except Exception as exc:  # the client may be gone; the reply itself still goes out (or fails on its own)
        logging.getLogger("stringsh.mcp").debug("log notification not sent: %s", exc)


async def report_refusal(context: Context[Any, Any] | None, tool: str, result: CallToolResult) -> None:
    """A refused tool call as a `warning` message: `{"tool": ..., "error": "ERROR(CODE): message\\nhint"}`."""
    if context is None or not result.is_error:
        return
    first = result.content[0] if result.content else None
    text = first.text if isinstance(first, TextContent) else "ERROR"
    await send(context, "warning", {"tool": tool[:80], "error": text[:2000]})


#: The stringsh warnings logged while serving the current call (its task and the worker thread it hops to).
_collected: ContextVar[list[logging.LogRecord] | None] = ContextVar("stringsh_mcp_log", default=None)


class _Collector(logging.Handler):
    """Keeps each stringsh warning for the call being served in this context (none outside a call)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)

    def emit(self, record: logging.LogRecord) -> None:
        found = _collected.get()
        if found is not None and len(found) < 20:
            found.append(record)


_COLLECTOR = _Collector()


@asynccontextmanager
async def reported(context: Context[Any, Any] | None, tool: str) -> AsyncIterator[list[CallToolResult]]:
    """Around one tool call: the warnings stringsh logs while serving it, then its refusal (the result the
    caller puts in the yielded list), go to the client as messages."""
    records: list[logging.LogRecord] = []
    token = _collected.set(records)
    answered: list[CallToolResult] = []
    try:
        yield answered
    finally:
        _collected.reset(token)
    if context is None:
        return
    for record in records:
        level = FROM_PYTHON.get(record.levelno, "warning")
        await send(context, level, {"logger": record.name, "message": record.getMessage()[:2000]})
    for result in answered:
        await report_refusal(context, tool, result)


def register(server: MCPServer, calls: Calls) -> None:
    """Serve `logging/setLevel` (which announces the `logging` capability)."""
    del calls
    # The SDK warns on each message that logging is deprecated from 2026-07-28; stringsh serves it up to 2025-11-25.
    warnings.filterwarnings("ignore", message="The logging capability is deprecated", category=MCPDeprecationWarning)
    stringsh_log = logging.getLogger("stringsh")
    if _COLLECTOR not in stringsh_log.handlers:
        stringsh_log.addHandler(_COLLECTOR)

    async def set_level(ctx: ServerRequestContext[Any, Any], params: SetLevelRequestParams) -> EmptyResult:
        ctx.session._connection.state[LEVEL] = params.level
        return EmptyResult()

    server._lowlevel_server.add_request_handler("logging/setLevel", SetLevelRequestParams, set_level)
