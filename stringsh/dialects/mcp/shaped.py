"""A tool result with structure: its text (the text block, byte for byte as before) and the `structuredContent` that
goes with it, validated by the tool's `outputSchema` (outputs.py). Free of the SDK: the stdio front's early
answers (shortcut.py) carry the same structured content as the SDK's.

Every structured result holds `content`, the text block's text exactly, as the reference filesystem server's do
(a client that reads only `structuredContent` still gets the whole reply), plus the tool's own fields. Those come
from the engine's values (`fields`: names as JSON fields hold them, `escapes.json_name`) or from the text as the
client gets it (`parse`: grep hits, symbols, a shell's exit status). Either way they are shown as the text is:
masked (the engine's values one by one, the parsed ones through the masked text they come from), controls escaped,
and a lone surrogate written as `\\xHH` or `\\uXXXX`, so no field holds what the text would not show."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from stringsh.escapes import SHOWN, SURROGATE, escape_controls, hex_escape

if TYPE_CHECKING:
    from stringsh.workspace import Workspace

#: Fields parsed from the text as shown (masked and escaped already).
Parse = Callable[[str], Mapping[str, Any]]


class Shaped:
    """`text`: the reply text; `fields`: structured fields from the engine's values (masked when shown);
    `parse`: structured fields read back from the shown text; `leaves`: every string leaf of `fields` joined by
    spaces, when the maker has them at hand (a listing's names), so that `structured` need not walk a thousand
    entries to find them."""

    __slots__ = ("fields", "leaves", "parse", "text")

    def __init__(self, text: str, fields: Mapping[str, Any] | None = None, parse: Parse | None = None,
                 leaves: str | None = None) -> None:
        self.text = text
        self.fields = fields or {}
        self.parse = parse
        self.leaves = leaves

    def __str__(self) -> str:
        return self.text


def text_of(outcome: str | Shaped) -> str:
    return outcome.text if isinstance(outcome, Shaped) else outcome


def encodable_text(text: str) -> str:
    """`text` with each lone surrogate shown as `\\xe9` (a byte that was not UTF-8) or `\\ud800`, as the SDK's
    results are written (coded.encodable)."""
    return SURROGATE.sub(lambda m: hex_escape(m.group(0)), text) if SURROGATE.search(text) else text


def _leaves(value: Any, show: Callable[[str], str]) -> Any:
    if isinstance(value, str):
        return show(value)
    if isinstance(value, Mapping):
        return {key: _leaves(item, show) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_leaves(item, show) for item in value]
    return value


def structured(ws: Workspace, outcome: Shaped, shown_text: str) -> dict[str, Any]:
    """The structured content of `outcome` whose text the client gets as `shown_text` (masked and escaped)."""
    parsed = outcome.parse(shown_text) if outcome.parse is not None else {}
    fields_text = outcome.leaves if outcome.leaves is not None else _unchanged_text(outcome.fields)
    all_text = _unchanged_text(parsed)
    if fields_text is not None and all_text is not None \
            and _shown_as_is(ws, fields_text, f"{shown_text} {fields_text} {all_text}"):
        return {"content": shown_text, **outcome.fields, **parsed}
    fields = _leaves(outcome.fields, lambda text: escape_controls(ws.redact_lines(text)))
    return _leaves({"content": shown_text, **fields, **parsed}, encodable_text)


def _unchanged_text(value: Any) -> str | None:
    """The string leaves of a plain JSON value (dicts, lists, scalars) joined by spaces, or None for any other
    container (`_leaves` would hand back a copy of another type: a tuple as a list)."""
    strings: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str:
            strings.append(item)
        elif kind is dict:
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)
        elif isinstance(item, str | Mapping | list | tuple):
            return None
    return " ".join(strings)


def _shown_as_is(ws: Workspace, fields_text: str, all_text: str) -> bool:
    """Whether `_leaves` would give every leaf back unchanged: no field leaf holds what masking or escaping changes,
    and no leaf at all a lone surrogate. Tested on the leaves joined by spaces, in one scan each: each pattern
    matches a leaf's text alone or at its end before a space alike (SHOWN's bare CR too), and a secret's literal in
    a leaf is in the join, so a join without them has leaves without them (a literal spanning a space only sends
    the call the slow way). A result of a thousand names is shown in one scan, not a thousand maskings."""
    return not ws.redactor.may_mask(fields_text.encode("utf-8", "surrogatepass")) \
        and SHOWN.search(fields_text) is None and SURROGATE.search(all_text) is None
