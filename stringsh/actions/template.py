"""The `act.<id>.response` template language, line by line, as String runs it.

- `{var} = {Response.<path>}` sets a session variable, prints nothing;
- `for: item in <path>` … `end:` repeats the lines between with `{item.<path>}` filled in;
- `save: <path>` / `decode: base64|none` / `to: <file>` write data to a workspace file (problems become lines);
- `{@name} = expr` registers a value shortcut `@name` (inside `for:` one per item: `@name-1`, `@name-2`, …) whose
  value is `expr` filled in, or a tuple `(a, b)`; a later `{@name}` prints the latest slug (`@name-2`), which
  `/act.x --flag @name-2` and `/open @name-2` then resolve; running the template again drops its old slugs;
- anything else is printed after substituting `{Response.…}`, then payload fields, then session variables.
Paths use dots and `[N]` (a leading `$.` is allowed); `Response.status` and `Response.body` exist (a CLI run adds
`Response.stdout`, `Response.stderr` and `Response.exit_code`), and a body that is not JSON is its raw text. A null
value prints as empty; a `{Response.…}` path that does not exist stays literal, and a warning line after the output
names it and what exists (String's `Unresolved template reference`); an unknown `{x}` stays literal.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from stringsh.errors import error_reason

SLUG_ASSIGN = re.compile(r"^\{@([A-Za-z_]\w*)\}\s*=\s*(.+)$")
SLUG_REF = re.compile(r"\{@([A-Za-z_]\w*)\}")
ASSIGN = re.compile(r"^\{([A-Za-z_]\w*)\}\s*=\s*\{Response\.(.+)\}\s*$")
FOR = re.compile(r"^\s*for:\s*([A-Za-z_]\w*)\s+in\s+(.+)$")
END = re.compile(r"^\s*end:\s*$")
SAVE = re.compile(r"^\s*save:\s*(.+)$")
DECODE = re.compile(r"^\s*decode:\s*(\S+)\s*$")
TO = re.compile(r"^\s*to:\s*(.+)$")
RESPONSE_REF = re.compile(r"\{Response\.([A-Za-z_.\[\]\d-]+)\}")
ITEM_REF = re.compile(r"\{([A-Za-z_]\w*)\.([A-Za-z_.\[\]\d-]+)\}")
NAME_REF = re.compile(r"\{([A-Za-z_]\w*)\}")
PATH_TOKEN = re.compile(r"([A-Za-z_][\w-]*)|\[(\d+)\]")
MISSING = object()

#: A value shortcut's value: one string, or a tuple whose items `{field[N]}` picks.
ShortcutValue = str | tuple[str, ...]


@dataclass
class HttpResponse:
    """What a template sees of a response; `json` is MISSING when the body is not JSON; `fields` are more
    `Response.<name>` values (a CLI run's stdout, stderr and exit_code)."""

    status: int
    text: str
    json: Any = MISSING
    fields: dict[str, Any] = field(default_factory=dict)

    @property
    def body(self) -> Any:
        return self.text if self.json is MISSING else self.json


def walk(value: Any, path: str) -> Any:
    """Follow `a.b[0].c` (a leading `$.` is ignored); MISSING when any step does not exist."""
    path = re.sub(r"^\$\.?", "", path.strip())
    current = value
    for key, index in PATH_TOKEN.findall(path):
        if key:
            if not isinstance(current, dict) or key not in current:
                return MISSING
            current = current[key]
        else:
            position = int(index)
            if not isinstance(current, list) or position >= len(current):
                return MISSING
            current = current[position]
    return current


def show(value: Any) -> str:
    """How a value prints: nothing for missing or null, JSON for objects and lists."""
    if value is MISSING or value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return str(value)


def split_top_level(text: str) -> list[str]:
    """Comma-split that keeps `{…}` whole, so `({a}, {b})` splits in two even when a value holds a comma."""
    parts: list[str] = []
    depth = start = 0
    for position, char in enumerate(text):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:position].strip())
            start = position + 1
    parts.append(text[start:].strip())
    return parts


def shortcut_value(text: str) -> ShortcutValue:
    """`(a, b)` is a tuple (one item is a plain value, `()` an empty tuple); a leading `@` is dropped."""
    text = text.strip()
    if text.startswith("(") and text.endswith(")"):
        inner = text[1:-1].strip()
        if not inner:
            return ()
        parts = [part.removeprefix("@") for part in split_top_level(inner)]
        return parts[0] if len(parts) == 1 else tuple(parts)
    return text.removeprefix("@")


class ValueShortcuts:
    """The `{@name}` registrations of one template run, into the topic's value shortcuts."""

    def __init__(self, store: MutableMapping[str, ShortcutValue]) -> None:
        self.store = store
        self.current: dict[str, str] = {}  # base -> latest slug
        self.counters: dict[str, int] = {}
        self.seen: set[str] = set()

    def register(self, base: str, value: ShortcutValue, in_loop: bool) -> None:
        if base not in self.seen:  # a re-run with fewer items must not leave stale slugs
            self.seen.add(base)
            for key in [k for k in self.store if k == base or k.startswith(f"{base}-")]:
                del self.store[key]
        if in_loop:
            self.counters[base] = self.counters.get(base, 0) + 1
            slug = f"{base}-{self.counters[base]}"
        else:
            slug = base
        self.store[slug] = value
        self.current[base] = slug

    def refs(self, text: str) -> str:
        """`{@name}` -> `@<latest slug>`; an unregistered one stays as typed."""
        current = self.current
        return SLUG_REF.sub(lambda m: f"@{current[m.group(1)]}" if m.group(1) in current else m.group(0), text)


def run_template(
    template: str,
    response: HttpResponse,
    payload: Mapping[str, str],
    variables: MutableMapping[str, str],
    write_file: Callable[[str, bytes], None],
    shortcuts: MutableMapping[str, ShortcutValue] | None = None,
) -> str:
    """Execute the template; assignments update `variables`, `{@name} = …` updates `shortcuts`, `to:` calls
    `write_file(path, data)`."""
    scope = {"status": response.status, "body": response.body, **response.fields}
    unresolved: list[str] = []
    slugs = ValueShortcuts(shortcuts if shortcuts is not None else {})

    def reference(match: re.Match[str]) -> str:
        value = walk(scope, match.group(1))
        if value is MISSING:
            if match.group(0) not in unresolved:
                unresolved.append(match.group(0))
            return match.group(0)
        return show(value)

    def names(text: str) -> str:
        def replace(match: re.Match[str]) -> str:
            name = match.group(1)
            if name in payload:
                return str(payload[name])
            return variables.get(name, match.group(0))

        return NAME_REF.sub(replace, text)

    def line_text(text: str) -> str:
        return names(RESPONSE_REF.sub(reference, slugs.refs(text)))

    out: list[str] = []
    buffer: bytes | str | None = None
    lines = template.split("\n")
    index = 0
    while index < len(lines):
        line = lines[index].rstrip("\r")
        index += 1
        if match := ASSIGN.match(line):
            variables[match.group(1)] = show(walk(scope, match.group(2)))
        elif match := SLUG_ASSIGN.match(line):
            slugs.register(match.group(1), shortcut_value(line_text(match.group(2))), in_loop=False)
        elif match := FOR.match(line):
            item_name, path = match.group(1), match.group(2).strip()
            path = path.removeprefix("Response.")
            body: list[str] = []
            while index < len(lines) and not END.match(lines[index]):
                body.append(lines[index].rstrip("\r"))
                index += 1
            index += 1
            items = walk(scope, path)
            for item in items if isinstance(items, list) else []:
                for body_line in body:
                    filled = ITEM_REF.sub(
                        lambda m, item=item, name=item_name: (
                            show(walk(item, m.group(2))) if m.group(1) == name else m.group(0)
                        ),
                        body_line,
                    )
                    filled = NAME_REF.sub(
                        lambda m, item=item, name=item_name: show(item) if m.group(1) == name else m.group(0), filled
                    )
                    if match := SLUG_ASSIGN.match(filled):
                        slugs.register(match.group(1), shortcut_value(line_text(match.group(2))), in_loop=True)
                        continue
                    out.append(line_text(filled))
        elif match := SAVE.match(line):
            path = match.group(1).strip()
            value = walk(response.json, path) if response.json is not MISSING else MISSING
            if value is MISSING:
                out.append(f"save: path returned no value: {path}")
                buffer = None
            else:
                buffer = show(value)
        elif match := DECODE.match(line):
            encoding = match.group(1)
            if buffer is None:
                out.append("decode: no current buffer (was save: skipped or missing?)")
            elif encoding == "base64":
                try:
                    text = buffer if isinstance(buffer, str) else buffer.decode("ascii")
                    buffer = base64.b64decode("".join(text.split()), validate=True)
                except (binascii.Error, ValueError, UnicodeDecodeError) as exc:
                    out.append(f"decode: base64 failed: {exc}")
            elif encoding != "none":
                out.append(f'decode: unknown encoding "{encoding}" (supported: base64, none)')
        elif match := TO.match(line):
            if buffer is None:
                out.append("to: no current buffer (was save: skipped or missing?)")
                continue
            target = names(match.group(1).strip())
            data = buffer.encode("utf-8") if isinstance(buffer, str) else buffer
            try:
                write_file(target, data)
            except Exception as exc:
                reason = error_reason(exc)
                out.append(f"to: write failed: {reason}")
        else:
            out.append(line_text(line))
    while out and not out[-1].strip():
        out.pop()
    if unresolved:
        available = ", ".join(f"Response.{name}" for name in scope)
        out += ["", *(f"Warning: Unresolved template reference {ref} (available: {available})" for ref in unresolved)]
    return "\n".join(out)
