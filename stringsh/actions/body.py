"""Request body templates for POST/PUT/PATCH: `{field}` (JSON-escaped inside quotes), `{field|modifier}`.

A value placed anywhere inside a JSON string of the template (`"hello {name}"`, not only `"{name}"`) is escaped,
so a caller's quotes never end the author's string and add keys.

Modifiers compose left to right: `base64`, `file` (workspace file as text), `base64file` (workspace file bytes).
Files are read through the caller's reader, so the workspace's confinement and secret rules apply.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable, Mapping

from stringsh.errors import StringError

PLACEHOLDER = re.compile(r"(\")?\{([A-Za-z_]\w*)(?:\[(\d+)\])?((?:\|[A-Za-z][A-Za-z0-9]*)*)\}(\")?")


def fill_body(
    template: str,
    payload: Mapping[str, str],
    variables: Mapping[str, str],
    read_bytes: Callable[[str], bytes],
) -> str:
    strings = _string_spans(template)

    def replace(match: re.Match[str]) -> str:
        left, name, index, modifiers, right = match.groups()
        if name in payload:
            value = payload[name]
            if index is not None:
                parts = value.split(",")
                value = parts[int(index)] if int(index) < len(parts) else ""
        elif name in variables:
            value = variables[name]
        else:
            return match.group(0)
        for modifier in filter(None, modifiers.split("|")):
            if modifier == "base64":
                value = base64.b64encode(value.encode("utf-8")).decode("ascii")
            elif modifier in ("file", "base64file"):
                data = read_bytes(value)
                if modifier == "file":
                    try:
                        value = data.decode("utf-8")
                    except UnicodeDecodeError:
                        raise StringError(
                            "BINARY_FILE", f"{value} is not UTF-8 text", "Use {name|base64file} for binary files."
                        ) from None
                else:
                    value = base64.b64encode(data).decode("ascii")
            else:
                return match.group(0)
        if left and right:
            return json.dumps(value, ensure_ascii=False)
        if _inside(strings, match.start(2)):
            value = json.dumps(value, ensure_ascii=False)[1:-1]
        return (left or "") + value + (right or "")

    return PLACEHOLDER.sub(replace, template)


def _string_spans(template: str) -> list[tuple[int, int]]:
    """(opening quote, closing quote) offsets of the template's JSON strings (backslash escapes honoured)."""
    spans: list[tuple[int, int]] = []
    start = template.find('"')
    while start >= 0:
        end = start + 1
        while end < len(template) and template[end] != '"':
            end += 2 if template[end] == "\\" else 1
        spans.append((start, end))
        start = template.find('"', end + 1)
    return spans


def _inside(spans: list[tuple[int, int]], offset: int) -> bool:
    return any(start < offset < end for start, end in spans)
