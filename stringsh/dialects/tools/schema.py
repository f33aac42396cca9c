"""Argument schemas: each tool names its fields, their JSON types and which are required, and a call is checked
against them before anything runs (unknown fields and wrong types are refused, never coerced: `"limit": "5"` and
`"replace_all": "yes"` are errors)."""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from stringsh.dialects.tools.protocol import json_type
from stringsh.errors import StringError

#: JSON type names a field may have.
TYPES = ("string", "integer", "boolean", "string[]")


class Field(NamedTuple):
    name: str
    type: str  # one of TYPES
    required: bool = False
    minimum: int | None = None  # integers
    maximum: int | None = None
    choices: tuple[str, ...] = ()  # strings


def args_error(message: str, hint: str | None = None) -> StringError:
    return StringError("INVALID_ARGS", message, hint)


def check_args(tool: str, fields: tuple[Field, ...], args: dict[str, Any]) -> dict[str, Any]:
    """The arguments, checked; a missing optional field is absent from the result (the tool picks its default)."""
    known = {f.name: f for f in fields}
    for name in args:
        if name not in known:
            listing = ", ".join(known) or "none"
            raise args_error(f"Unknown argument for {tool}: {name}", f"{tool} takes: {listing}.")
    for f in fields:
        if f.name not in args or args[f.name] is None:
            if f.required:
                raise args_error(f"{tool} needs {f.name!r} ({f.type}).")
            continue
        _check(tool, f, args[f.name])
    return {name: int(value) if known[name].type == "integer" else value
            for name, value in args.items() if value is not None}


def _check(tool: str, f: Field, value: Any) -> None:
    wrong = args_error(f"{tool}: {f.name!r} must be {_article(f.type)}, not {json_type(value)}.")
    if f.type == "string":
        if not isinstance(value, str):
            raise wrong
        if f.choices and value not in f.choices:
            raise args_error(f"{tool}: {f.name!r} must be one of {', '.join(f.choices)}, not {value!r}.")
    elif f.type == "boolean":
        if not isinstance(value, bool):
            raise wrong
    elif f.type == "integer":
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) \
                or value != int(value):
            raise wrong
        if f.minimum is not None and value < f.minimum:
            raise args_error(f"{tool}: {f.name!r} must be at least {f.minimum}, not {int(value)}.")
        if f.maximum is not None and value > f.maximum:
            raise args_error(f"{tool}: {f.name!r} must be at most {f.maximum}, not {int(value)}.")
    elif f.type == "string[]" and not (isinstance(value, list) and all(isinstance(item, str) for item in value)):
        raise args_error(f"{tool}: {f.name!r} must be an array of strings.")


def _article(kind: str) -> str:
    return {"string": "a string", "integer": "an integer", "boolean": "a boolean (true or false)",
            "string[]": "an array of strings"}[kind]
