"""What the JSON-lines dialects (`daemon --json`, `stringsh tools`) share about a request object: the fields it may
have, refused in one wording wherever a request names another. MCP's requests are the SDK's to check."""

from __future__ import annotations

import json
from collections.abc import Mapping

from stringsh.errors import StringError

#: How much of a refused value a reply quotes.
MAX_QUOTED = 64


def quoted(value: object) -> str:
    """A value from a request as JSON text, cut at MAX_QUOTED characters: a refusal names what it refuses without
    repeating a huge value or letting it break the reply's lines."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= MAX_QUOTED else text[: MAX_QUOTED - 1] + "…"


def field_name(name: str) -> str:
    """A field name as a refusal shows it: as sent when short and printable, else quoted."""
    return name if name.isprintable() and 0 < len(name) <= MAX_QUOTED else quoted(name)


def unknown_field(message: Mapping[str, object], fields: tuple[str, ...]) -> StringError | None:
    """The refusal of a request with a field outside `fields` (the first, alphabetically), else None. A field the
    dialect does not know is refused, never ignored: a misspelt `topic` must not run the request elsewhere."""
    unknown = sorted(set(message) - set(fields))
    if not unknown:
        return None
    names = [f'"{name}"' for name in fields]
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    return StringError("INVALID_REQUEST", f"Unknown request field: {field_name(unknown[0])}",
                       f"A request has {listed} only.")
