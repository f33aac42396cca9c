"""What an action fence declares."""

from __future__ import annotations

from dataclasses import dataclass, field

TYPES = ("string", "number", "boolean", "path")


@dataclass(frozen=True)
class Field:
    name: str
    type: str
    required: bool = False
    description: str = ""
    default: str | None = None
    short: str | None = None


@dataclass
class Action:
    id: str
    method: str
    uri: str
    headers: list[tuple[str, str]] = field(default_factory=list)
    fields: list[Field] = field(default_factory=list)
    description: str = ""
    #: Body template for POST/PUT/PATCH (`body:` block or `-d '…'`), None to send the flat payload.
    body: str | None = None
    #: The `act.<id>.response` template, None for a doc response.
    response: str | None = None
    #: 1-based line of the opening fence.
    line: int = 0
    #: Why a CLI action is refused (a placeholder where bash would run its value as code), one line each.
    problems: list[str] = field(default_factory=list)

    @property
    def is_cli(self) -> bool:
        return self.method == "CLI"

    def field_named(self, name: str) -> Field | None:
        return next((f for f in self.fields if f.name == name), None)
