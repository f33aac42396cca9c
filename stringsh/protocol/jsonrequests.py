"""`daemon --json`'s request lines: one JSON object per line read into the request to run, or the reply refusing it
(naming its id when it can). The wire only: the daemon (stringsh/daemon.py) runs what this reads."""

from __future__ import annotations

import re
from dataclasses import dataclass

from stringsh.protocol.jsonbounds import loader
from stringsh.protocol.jsonfields import quoted, unknown_field
from stringsh.protocol.response import Reply
from stringsh.protocol.stream import StreamItem

REQUEST_ID_TEXT = r"^[A-Za-z0-9._:-]{1,64}$"  # `daemon --json` only; compiled by `re` on first use
#: `daemon --json`: the fields a request may have.
JSON_FIELDS = ("id", "cmd", "topic")
JSON_HINT = 'Send one object per line: {"id": "1", "cmd": "/help", "topic": "main"}'
#: A `daemon --json` request's id as decoded: echoed in its reply as it came (None: the request had none).
JsonId = str | int | float | None


@dataclass
class JsonItem(StreamItem):
    """A `daemon --json` request; `json_id`: its id as decoded, which its reply echoes as sent."""

    json_id: JsonId = None


@dataclass
class Answered:
    """A reply decided while reading a `daemon --json` line; `json_id` as in `JsonItem`."""

    reply: Reply
    json_id: JsonId = None


def json_request(line: bytes) -> JsonItem | Answered:
    """One `daemon --json` line: the request to run, or the reply refusing it (naming its id when it can)."""
    json_id: JsonId = None
    try:
        message = _load(line)
        if not isinstance(message, dict):
            raise ValueError('expected an object with a string "cmd"')
        # read before anything else is refused, so a refusal still names the request it refuses
        raw_id = message.get("id")
        if not isinstance(raw_id, str | int | float) and raw_id is not None:
            return _refused("INVALID_REQUEST", f"id must be a string, number or boolean: {quoted(raw_id)}",
                            JSON_HINT, None)
        json_id = raw_id
        if not isinstance(message.get("cmd"), str):
            raise ValueError('expected an object with a string "cmd"')
        unknown = unknown_field(message, JSON_FIELDS)
        if unknown is not None:
            return _refused(unknown.code, unknown.message, unknown.hint, json_id)
        topic = message.get("topic")
        if topic is not None and not isinstance(topic, str):
            raise ValueError('"topic" must be a string')
    except (ValueError, UnicodeDecodeError) as exc:
        reason = str(exc).splitlines()[0]
        return _refused("INVALID_PAYLOAD", f"Malformed JSON request: {reason}", JSON_HINT, json_id)
    cmd = message["cmd"]
    if json_id is not None and not cmd.lstrip().startswith("["):
        # the `re:` line names the request too, where the id can be written as String's `[id]`
        text = json_id if isinstance(json_id, str) else _json_text(json_id)
        if re.match(REQUEST_ID_TEXT, text):
            cmd = f"[{text}] {cmd.lstrip()}"
    return JsonItem(cmd, topic, json_id=json_id)


def _refused(code: str, message: str, hint: str | None, json_id: JsonId) -> Answered:
    text = f"re: (invalid request)\nERROR({code}): {message}" + (f"\n{hint}" if hint else "")
    return Answered(Reply(text, False, code, None, "main"), json_id)


def _json_text(value: JsonId) -> str:
    from json import dumps

    return dumps(value)


def _not_json(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    """A JSON number as Python reads it (`1e2` is 100.0); one too large for a float is refused, not made infinite."""
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"number out of range: {text[:32]}")
    return value


_load = loader(parse_constant=_not_json, parse_float=_finite_float)  # one decoder for every request line
