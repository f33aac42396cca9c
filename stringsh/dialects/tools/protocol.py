"""The wire format of `stringsh tools`: one JSON object a line each way.

Request `{"id", "tool", "args"}`; reply `{"id", "ok": true, "result"}` or `{"id", "ok": false, "code", "error"
[, "hint"] [, "result"]}` (`error` a one-line message, the interface's own strings where it names them; `code` stable;
`result` only where a failed call still produced something, e.g. a timed-out command's partial output).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

from stringsh.errors import StringError
from stringsh.escapes import escape_controls, json_name, json_safe
from stringsh.protocol.jsonbounds import TooDeep, dumps, loads
from stringsh.protocol.jsonfields import unknown_field

#: The longest request line read; the rest of a longer one is skipped and the request refused.
MAX_LINE = 16 * 1024 * 1024
REQUEST_FIELDS = ("id", "tool", "args")


class ToolError(StringError):
    """A refusal that still carries a result (a timed-out command's partial output)."""

    def __init__(self, code: str, message: str, result: dict[str, Any] | None = None, hint: str | None = None) -> None:
        super().__init__(code, message, hint)
        self.result = result


class Request(NamedTuple):
    id: Any
    tool: str
    args: dict[str, Any]


class BadRequest(Exception):
    """A line that is not a well-formed request; `id` is echoed when the line had a usable one."""

    def __init__(self, id_: Any, error: StringError) -> None:
        super().__init__(error.message)
        self.id = id_
        self.error = error


def invalid(message: str, hint: str | None = None) -> StringError:
    return StringError("INVALID_REQUEST", message, hint or "Send one JSON object a line: "
                       '{"id": 1, "tool": "read", "args": {"file_path": "README.md"}}.')


def _no_constants(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def parse_request(line: bytes) -> Request:
    """The request on one line (without its newline); BadRequest says precisely what is wrong."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest(None, invalid("The request is not valid UTF-8.")) from None
    try:
        value = loads(text, parse_constant=_no_constants)
    except TooDeep as exc:
        raise BadRequest(None, invalid(f"The request is {exc}; nothing was done.")) from None
    except ValueError as exc:
        raise BadRequest(None, invalid(f"The request is not valid JSON: {exc}")) from None
    if not isinstance(value, dict):
        raise BadRequest(None, invalid(f"The request must be a JSON object, not {json_type(value)}."))
    id_ = value.get("id")
    if "id" not in value:
        raise BadRequest(None, invalid('The request has no "id".'))
    if isinstance(id_, bool) or not isinstance(id_, str | int | float) or (isinstance(id_, float)
                                                                           and not math.isfinite(id_)):
        raise BadRequest(None, invalid(f'"id" must be a string or a number, not {json_type(id_)}.'))
    unknown = unknown_field(value, REQUEST_FIELDS)
    if unknown is not None:
        raise BadRequest(id_, unknown)
    tool = value.get("tool")
    if tool is None:
        raise BadRequest(id_, invalid('The request has no "tool".'))
    if not isinstance(tool, str):
        raise BadRequest(id_, invalid(f'"tool" must be a string, not {json_type(tool)}.'))
    args = value.get("args", {})
    if not isinstance(args, dict):
        raise BadRequest(id_, invalid(f'"args" must be a JSON object, not {json_type(args)}.'))
    return Request(id_, tool, args)


def json_type(value: object) -> str:
    """The JSON name of a decoded value's type, for refusals."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def ok_reply(id_: Any, result: dict[str, Any]) -> dict[str, Any]:
    return {"id": id_, "ok": True, "result": result}


def error_reply(id_: Any, error: StringError) -> dict[str, Any]:
    """A refusal's reply, its hint naming the JSON tools to call next (hinting.py), never a String Command."""
    from stringsh.dialects.tools.hinting import tools_hint

    reply: dict[str, Any] = {"id": id_, "ok": False, "code": error.code, "error": error.message}
    advice = tools_hint(error)
    if advice:
        reply["hint"] = advice
    if isinstance(error, ToolError) and error.result is not None:
        reply["result"] = error.result
    return reply


#: The fields whose strings are file names (a list's items too: glob's `matches`, git's `untracked`).
NAME_FIELDS = frozenset({"file_path", "path", "matches", "untracked"})


def masked(value: Any, mask: Callable[[str], str], name: bool = False) -> Any:
    """Every string of a reply (values, not keys) masked: where the JSON tools' output is masked, once, for every
    tool and every refusal. `mask` keeps line breaks, so a numbered read keeps its numbers. Each string is made safe
    for a terminal here too, after masking (`escapes.escape_controls`, docs/security.md): a client prints them.
    A file name (`name`, a NAME_FIELDS value) that is not UTF-8 is its quoted form (`escapes.json_name`)."""
    if isinstance(value, str):
        return escape_controls(mask(json_name(value) if name else value))
    if isinstance(value, dict):
        return {key: masked(item, mask, key in NAME_FIELDS) for key, item in value.items()}
    if isinstance(value, list):
        return [masked(item, mask, name) for item in value]
    return value


def encode_reply(reply: dict[str, Any]) -> bytes:
    """One line of UTF-8 JSON; a lone surrogate (an id sent as `"\\ud800"`) is written as its JSON escape, so the
    reply keeps the value exactly and still encodes."""
    return (json_safe(dumps(reply)) + "\n").encode("utf-8")
