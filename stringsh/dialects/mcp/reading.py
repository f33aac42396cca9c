"""`read_text_file`'s text: the engine's read with every line ending shown as `\\n` (docs/text-fidelity.md's table),
cut to its `head` or `tail` lines. Free of the SDK: the stdio front answers it before the SDK is loaded."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.errors import StringError
from stringsh.workspace import as_lf

if TYPE_CHECKING:
    from stringsh.dialects.mcp.calls import Call


def _split_lines(text: str) -> list[str]:
    """Lines of `\\n` text with their breaks, in the shared line model (no break on U+2028 or form feed)."""
    lines = text.split("\n")
    return [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])


def _head(text: str, count: int) -> str:
    """The first `count` lines of `_split_lines(text)`, found without splitting the rest."""
    end = -1
    for _ in range(count):
        end = text.find("\n", end + 1)
        if end < 0:
            return text
    return text[:end + 1]


def read_text(call: Call, path: str, head: int | None, tail: int | None) -> str:
    if head is not None and tail is not None:
        raise StringError("INVALID_PAYLOAD", "Cannot specify both head and tail parameters simultaneously",
                          "Give head or tail, not both.")
    text = as_lf(call.ws.read_text(call.path(path), topic=call.topic, legacy=True).text)
    if head is not None:
        text = _head(text, head)
    elif tail is not None:
        text = "".join(_split_lines(text)[-tail:]) if tail else ""
    return text  # masked with the result (masking.py)
