"""`stringsh mcp --http --log-json`: one JSON object a line on stderr, for a log collector beside the container.

Each line holds `time` (UTC, ISO 8601), `level`, `event` and the event's own fields: `start`, `http` (method, path,
status, duration_ms, and a digest of the Mcp-Session-Id to follow one session), `shutdown`, `stop`, and `log` for
what stringsh, the SDK and uvicorn log. Never a request's or reply's body, a query string, a header's value or the
bearer token: a message that happens to hold the token has it replaced by `[token]`.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sys
import time
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from stringsh.dialects.mcp.asgi import App, Message, Receive, Scope, Send

#: The longest message a `log` line keeps: a library's message is for finding a problem, not for carrying data.
MESSAGE_CHARS = 300


class JsonLog:
    """Writes events as JSON lines; `secret` (the bearer token) is scrubbed from every string written."""

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.secret: str | None = None

    def event(self, event: str, level: str = "info", **fields: Any) -> None:
        record = {"time": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                  "level": level, "event": event, **fields}
        line = json.dumps(record, ensure_ascii=False, default=str)
        if self.secret:
            line = line.replace(self.secret, "[token]")
        try:
            self.stream.write(line + "\n")
            self.stream.flush()
        except (OSError, ValueError):  # stderr closed by whoever started us: logging must not stop the server
            pass

    def capture_logging(self) -> None:
        """Route the `logging` records of stringsh, the SDK and uvicorn here (instead of their text handlers)."""
        handler = _Handler(self)
        root = logging.getLogger()
        root.handlers[:] = [handler]
        root.setLevel(logging.WARNING)
        for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "mcp", "stringsh"):
            logger = logging.getLogger(name)
            logger.handlers[:] = []
            logger.propagate = True

    def requests(self, app: App) -> App:
        """The app, with one `http` line per HTTP request once its response ends (or fails)."""

        async def logged(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http":
                await app(scope, receive, send)
                return
            started = time.monotonic()
            status = 0

            async def watched(message: Message) -> None:
                nonlocal status
                if message["type"] == "http.response.start":
                    status = int(message["status"])
                await send(message)

            try:
                await app(scope, receive, watched)
            finally:
                fields: dict[str, Any] = {"method": scope.get("method"), "path": scope.get("path"),
                                          "status": status or 500,
                                          "duration_ms": round((time.monotonic() - started) * 1000, 1)}
                session = _header(scope, b"mcp-session-id")
                if session:
                    fields["session"] = hashlib.sha256(session).hexdigest()[:12]
                self.event("http", "info" if (status or 500) < 500 else "error", **fields)

        return logged


def _header(scope: Scope, name: bytes) -> bytes:
    for key, value in scope.get("headers") or ():
        if key.lower() == name:
            return bytes(value)
    return b""


class _Handler(logging.Handler):
    """A `logging` record as a `log` line: its logger, level and (shortened) message; an exception by its type and
    where it was raised, not its message (which may quote a file's text)."""

    def __init__(self, log: JsonLog) -> None:
        super().__init__(logging.WARNING)
        self.log = log

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:  # a malformed format string must not lose the line
            message = str(record.msg)
        fields: dict[str, Any] = {"logger": record.name, "message": message[:MESSAGE_CHARS]}
        if record.exc_info and record.exc_info[0] is not None:
            fields["exception"] = record.exc_info[0].__name__
            tb = record.exc_info[2]
            while tb is not None and tb.tb_next is not None:
                tb = tb.tb_next
            if tb is not None:
                fields["where"] = f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}"
        self.log.event("log", record.levelname.lower(), **fields)
