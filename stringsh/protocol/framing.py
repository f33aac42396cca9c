"""String's chat envelope (`<𝒞=string:TOPIC>` … `</𝒞>`) and the JSON-lines frame of `daemon --json`."""

from __future__ import annotations

import re

ENVELOPE_CLOSE = "</𝒞>"
ENVELOPE_OPEN_LINE = re.compile(r"^<𝒞=string:([^>]*)>\s*$")


def envelope(topic: str, text: str) -> str:
    return f"<𝒞=string:{topic}>\n{text}\n{ENVELOPE_CLOSE}"


def envelope_topic(line: str) -> str | None:
    """The topic of an opening envelope line, or None when the line is not one."""
    match = ENVELOPE_OPEN_LINE.match(line) if line.startswith("<") else None
    return match.group(1) if match else None


def json_reply(request_id: str | None, ok: bool, code: str | None, topic: str, content: str) -> str:
    import json  # `daemon --json` only

    return json.dumps(
        {"id": request_id, "ok": ok, "code": code, "topic": topic, "content": content}, ensure_ascii=False
    )
