"""What the stdio reader refuses itself, before the SDK sees a line: JSON-RPC's own errors for a line that is not
JSON (-32700) or not a message the SDK can take (-32600). The SDK drops such a line without a word, so a client
waiting for its reply would wait forever. A refused request is answered (its id echoed when it had a usable one,
else null, as JSON-RPC says), a refused notification or response only logged: neither gets a reply on the wire.

Refused here: bytes that are not UTF-8, text that is not JSON, nesting deeper than `jsonbounds.MAX_DEPTH` (the
SDK's parser stops at 200 levels, Python's at about 1,000), anything but one object, a request whose `jsonrpc`,
`method`, `id` or `params` has the wrong type, and any string holding a lone surrogate (`"\\ud800"`: JSON can spell
it, no UTF-8 text holds it, and the SDK's parser refuses it)."""

from __future__ import annotations

import logging
from typing import Any, NamedTuple

from stringsh.protocol.jsonbounds import TooDeep, dumps, loads, lone_surrogate

log = logging.getLogger("stringsh.mcp")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
CANCELLED = "notifications/cancelled"
NOTHING_DONE = "; nothing was done"


class Checked(NamedTuple):
    """A line's fate: `reply` to send instead of passing it on (None: pass it on, unless `drop`); `request_id` of a
    request passed on, which the SDK will answer; `cancels`, the request a passed-on cancellation names."""

    reply: bytes | None = None
    drop: bool = False
    request_id: int | str | None = None
    cancels: int | str | None = None


def error_line(request_id: object, code: int, message: str) -> bytes:
    """One JSON-RPC error object, as the SDK writes its own (compact); an id holding a lone surrogate as its JSON
    escape."""
    reply = {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
    return (dumps(reply, separators=(",", ":")) + "\n").encode()


def _valid_id(value: object) -> bool:
    return (isinstance(value, int) and not isinstance(value, bool)) or isinstance(value, str)


def check(line: bytes) -> Checked:
    """Whether the SDK may have `line`, and what to answer when it may not."""
    if not line.strip():
        return Checked(drop=True)  # a blank line between messages is no message
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _refuse(None, PARSE_ERROR, f"Parse error: byte {line[exc.start]:#04x} at offset {exc.start} is not "
                                          f"UTF-8{NOTHING_DONE}")
    try:
        message = loads(text)
    except TooDeep as exc:
        return _refuse(None, INVALID_REQUEST, f"Invalid Request: the message is {exc}{NOTHING_DONE}")
    except ValueError as exc:
        return _refuse(None, PARSE_ERROR, f"Parse error: {str(exc).splitlines()[0]}{NOTHING_DONE}")
    if not isinstance(message, dict):
        return _refuse(None, INVALID_REQUEST, f"Invalid Request: a message is one JSON object{NOTHING_DONE}")
    if "method" not in message:
        return _response(message)
    request_id = message.get("id")
    is_request = "id" in message
    if is_request and not _valid_id(request_id):
        return _refuse(None, INVALID_REQUEST, f"Invalid Request: an id is a string or an integer{NOTHING_DONE}")
    params = message.get("params")
    problem = None
    if message.get("jsonrpc") != "2.0":
        problem = 'Invalid Request: "jsonrpc" must be "2.0"'
    elif not isinstance(message["method"], str):
        problem = 'Invalid Request: "method" must be a string'
    elif params is not None and not isinstance(params, dict):
        problem = 'Invalid Request: "params" must be an object'
    elif lone_surrogate(message) is not None:
        problem = "Invalid Request: a string holds a lone surrogate (a \\ud800-\\udfff escape), which no text can"
    if problem is not None:
        return _refuse(request_id if is_request else None, INVALID_REQUEST, problem + NOTHING_DONE, reply=is_request)
    if not is_request:
        cancelled = params.get("requestId") if message["method"] == CANCELLED and params else None
        return Checked(cancels=cancelled if _valid_id(cancelled) else None)
    return Checked(request_id=request_id)


def _response(message: dict[str, Any]) -> Checked:
    """A message without a method: a client's reply to the server's request, passed on when the SDK can take it,
    else dropped (a reply is never answered); with neither `result` nor `error` it is no reply, but an invalid
    request, answered as one."""
    request_id = message.get("id") if _valid_id(message.get("id")) else None
    if "result" not in message and "error" not in message:
        return _refuse(request_id, INVALID_REQUEST, f'Invalid Request: a request has a "method"{NOTHING_DONE}')
    if message.get("jsonrpc") == "2.0" and request_id is not None and ("result" in message) != (
            "error" in message) and lone_surrogate(message) is None:
        return Checked()
    log.warning("stringsh mcp: dropped a reply the server cannot read")
    return Checked(drop=True)


def _refuse(request_id: object, code: int, message: str, *, reply: bool = True) -> Checked:
    if not reply:
        log.warning("stringsh mcp: dropped a notification: %s", message)
        return Checked(drop=True)
    return Checked(reply=error_line(request_id, code, message))
