"""What the fuzz suite sends: real requests of each dialect, mutated with their grammar in mind (a field's value
swapped for a lone surrogate, a huge number, deep nesting; a token that means something to the reader inserted in
a String line), plus random bytes. Each request is one line; request `n` (its place in the batch) writes `tok<n>`
into `fz/w<n>.txt`, so a file's content says which request wrote it.

The settings keep CI cheap and repeatable: few examples, each a batch of lines served by one process,
derandomized, no deadline (a process start is slow on a busy machine, never a failure)."""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st

#: Per front end: a few examples (processes), each a batch of up to MAX_BATCH requests.
#: No shrinking: each example costs a process, and a failing batch is small enough to read as generated.
FUZZ = settings(max_examples=6, deadline=None, derandomize=True, database=None,
                phases=[Phase.explicit, Phase.generate],
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])
MAX_BATCH = 24
#: Text that means something to a reader or an encoder.
TOKENS = ["\ud800", "\udc00", "\udfff", "\udce9", "\x00", "\x1b[31m", "\x7f", "\x9b", "\u2028", "\r", "\t", "𝒞",
          "</𝒞>", "<<EOF", '"', "'", "\\", "\\u", "{", "}", "[", "]", "[x] ", "/", "//", "#", "$", "{name}", " --",
          "OPERATOR_CMD", "\ufeff", "é", "\U0001f600"]
#: Values a JSON field is swapped for.
ODD_VALUES: list[Any] = ["\ud800", "a\udc00b", "\udce9.txt", "", "x" * 300, 10**20, -1, 0, 1.5, 1e308, True, None,
                         [], {}, ["a"], {"a": 1}, "../outside.txt", "/etc/passwd", "fz/w0.txt\x00"]


def nested(depth: int) -> str:
    """A stand-in for `[[…]]` nested `depth` deep, replaced in the line's JSON text (json.dumps would recurse)."""
    return f"@@deep{depth}@@"


def _deepen(text: str) -> str:
    return re.sub(r'"@@deep(\d+)@@"', lambda m: "[" * int(m.group(1)) + "]" * int(m.group(1)), text)


def _lone_safe(text: str) -> bytes:
    """Text as bytes, a lone surrogate written as UTF-8 would if it could (surrogatepass: invalid UTF-8)."""
    return text.encode("utf-8", "surrogatepass")


texts = st.lists(st.one_of(st.text(max_size=4), st.sampled_from(TOKENS)), max_size=3).map("".join)
random_line = st.binary(max_size=80).map(lambda data: data.replace(b"\n", b" "))


def insert(line: str, at: int, text: str) -> str:
    at = at % (len(line) + 1)
    return line[:at] + text + line[at:]


@st.composite
def string_line(draw: st.DrawFn, n: int, seeds: list[str]) -> bytes:
    """One String Commands line: a real request, mutated or not, or random bytes."""
    if draw(st.integers(0, 9)) == 0:
        return draw(random_line)
    line = draw(st.sampled_from(seeds)).format(n=n)
    for _ in range(draw(st.integers(0, 3))):
        line = insert(line, draw(st.integers(0, 200)), draw(texts))
    return _lone_safe(line.replace("\n", " "))


@st.composite
def json_line(draw: st.DrawFn, n: int, seeds: list[dict[str, Any]]) -> bytes:
    """One JSON request: a real one with fields swapped, dropped or added, nested deep, or cut; or random bytes."""
    kind = draw(st.integers(0, 11))
    if kind == 0:
        return draw(random_line)
    value: Any = json.loads(json.dumps(draw(st.sampled_from(seeds))).replace("{n}", str(n)))
    if kind == 1:
        return _deepen(json.dumps(nested(draw(st.sampled_from([65, 300, 1000, 5000]))))).encode()
    for _ in range(draw(st.integers(0, 2))):
        target = value
        inner = [key for key, item in value.items() if isinstance(item, dict) and item]
        if inner and draw(st.booleans()):
            target = value[draw(st.sampled_from(inner))]
        key = draw(st.sampled_from([*target, "extra"]))
        action = draw(st.integers(0, 4))
        if action == 0:
            target.pop(key, None)
        elif action == 1:
            target[key] = nested(draw(st.sampled_from([2, 63, 70, 1000])))
        elif action == 2 and isinstance(target.get(key), str):
            target[key] = insert(target[key], draw(st.integers(0, 99)), draw(texts))
        else:
            target[key] = draw(st.sampled_from(ODD_VALUES))
    data = _deepen(json.dumps(value, ensure_ascii=draw(st.booleans())))
    raw = _lone_safe(data)
    if kind == 2:  # cut short
        raw = raw[: draw(st.integers(0, len(raw)))]
    elif kind == 3:  # one byte changed
        at = draw(st.integers(0, max(len(raw) - 1, 0)))
        raw = raw[:at] + bytes([draw(st.integers(0, 255).filter(lambda b: b != 10))]) + raw[at + 1:]
    return raw


def batch(line: Any) -> st.SearchStrategy[list[bytes]]:
    """A batch of lines, line `n` made by `line(n)`."""
    return st.integers(1, MAX_BATCH).flatmap(lambda size: st.tuples(*(line(n) for n in range(size)))).map(list)
