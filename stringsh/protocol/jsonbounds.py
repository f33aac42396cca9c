"""What every JSON-lines reader (`daemon --json`, `stringsh tools`, `stringsh mcp` on stdio) holds a request to before
anything runs, and how every JSON reply is written so that no value can stop it being written.

- Nesting: a request nested deeper than MAX_DEPTH is refused (Python's decoder recurses, and so would the code that
  walks a request; about 1,000 levels end it with RecursionError). No request of any dialect needs more than a few.
- Lone surrogates: JSON may spell one (`"\\ud800"`), Python decodes it, UTF-8 cannot encode it. A reply holding one
  (an echoed id or topic) writes it back as the same JSON escape: the same value, valid UTF-8, never an error.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

#: The deepest nesting a JSON request may have (objects and arrays, the outermost counted as 1).
MAX_DEPTH = 64
#: A surrogate code point: in a Python string, always a lone one (a pair decodes to one character).
SURROGATE = re.compile(r"[\ud800-\udfff]")


class TooDeep(ValueError):
    """A JSON text nested deeper than MAX_DEPTH."""

    def __init__(self) -> None:
        super().__init__(f"nested deeper than {MAX_DEPTH} levels")


def loads(text: str | bytes, **options: Any) -> Any:
    """`json.loads`, refusing a value nested deeper than MAX_DEPTH with TooDeep (a ValueError, as any malformed
    JSON is) instead of letting the decoder, or the code after it, run out of stack."""
    return _bounded(json.loads, text, **options)


def loader(**options: Any) -> Callable[[str | bytes], Any]:
    """`loads` with these decoder options and its decoder made once, for a reader of many small requests (json.loads
    makes a decoder per call when given options). Bytes are read as json.loads reads them."""
    decode = json.JSONDecoder(**options).decode

    def load(text: str | bytes) -> Any:
        if not isinstance(text, str):
            text = text.decode(json.detect_encoding(text), "surrogatepass")
        elif text.startswith("\ufeff"):
            raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
        return _bounded(decode, text)

    return load


def _bounded(decode: Callable[..., Any], text: str | bytes, **options: Any) -> Any:
    try:
        value = decode(text, **options)
    except RecursionError:
        raise TooDeep() from None
    if depth(value) > MAX_DEPTH:
        raise TooDeep()
    return value


def depth(value: object) -> int:
    """How deep `value` nests (a scalar 0, `[]` 1), walked without recursion; counting stops past MAX_DEPTH."""
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        level += 1
        deepest = max(deepest, level)
        if deepest > MAX_DEPTH:
            return deepest
        stack.extend((child, level) for child in children if isinstance(child, dict | list))
    return deepest


def lone_surrogate(value: object) -> str | None:
    """The first string of a decoded request (a key or a value) holding a lone surrogate, else None."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if SURROGATE.search(item):
                return item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def escape_surrogates(text: str) -> str:
    """JSON text with every lone surrogate written as its `\\uXXXX` escape: the same JSON value, encodable."""
    return SURROGATE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text) if SURROGATE.search(text) else text


def dumps(value: object, **options: Any) -> str:
    """`json.dumps(value, ensure_ascii=False)` whose text always encodes as UTF-8 (see `escape_surrogates`)."""
    text = json.dumps(value, ensure_ascii=False, **options) if options else _ENCODE(value)
    return escape_surrogates(text)


_ENCODE = json.JSONEncoder(ensure_ascii=False).encode  # what json.dumps makes anew per call for ensure_ascii=False
