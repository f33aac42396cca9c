"""The pieces every front end's reader and writer relies on, over many more inputs than a process per example
allows: writing a reply never fails whatever its text, a JSON reply keeps its value, and the MCP line check
decides every line without raising, its refusal one JSON-RPC error object."""

from __future__ import annotations

import json

from hypothesis import example, given, settings
from hypothesis import strategies as st

from stringsh.dialects.mcp.wirecheck import check
from stringsh.output import encode_text
from stringsh.protocol.jsonbounds import MAX_DEPTH, TooDeep, dumps, loader, loads

MANY = settings(max_examples=150, deadline=None, derandomize=True, database=None)
#: Every code point, lone surrogates included.
ANY_TEXT = st.text(st.one_of(st.characters(), st.characters(categories=["Cs"])), max_size=40)
JSON_VALUES = st.recursive(st.none() | st.booleans() | st.integers() | ANY_TEXT,
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(ANY_TEXT, inner, max_size=3),
                           max_leaves=12)


@MANY
@given(ANY_TEXT)
def test_a_reply_text_always_encodes(text: str) -> None:
    data = encode_text(text)
    if text.isascii():
        assert data == text.encode()


@MANY
@given(JSON_VALUES)
@example(["\ud800\udc00", "\udc80", {"\udbff": "\udfff"}])
def test_a_json_reply_keeps_its_value_and_encodes(value: object) -> None:
    text = dumps(value)
    assert json.loads(text.encode("utf-8")) == paired(value)


def paired(value: object) -> object:
    """The value JSON can carry: a high surrogate then a low one is, in JSON's escapes, one character (a pair),
    so two such lone surrogates side by side come back joined; every other code point comes back as it went."""
    if isinstance(value, str):
        return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    if isinstance(value, list):
        return [paired(item) for item in value]
    if isinstance(value, dict):
        return {paired(key): paired(item) for key, item in value.items()}
    return value


@MANY
@given(st.integers(1, 3000))
def test_nesting_past_the_bound_is_refused_whole(depth: int) -> None:
    text = "[" * depth + "]" * depth
    if depth <= MAX_DEPTH:
        assert loads(text) is not None
    else:
        try:
            loads(text)
        except TooDeep as exc:
            assert str(exc) == f"nested deeper than {MAX_DEPTH} levels"
        else:
            raise AssertionError("not refused")


def outcome(load: object, text: str | bytes) -> tuple[str, object]:
    """What a decoder made of `text`: ("value", it) or ("error", its type and message)."""
    try:
        return "value", load(text)  # type: ignore[operator]
    except (ValueError, UnicodeDecodeError) as exc:
        return "error", (type(exc).__name__, str(exc))


@MANY
@given(st.one_of(st.binary(max_size=60), ANY_TEXT, st.integers(1, 200).map(lambda n: "[" * n + "]" * n),
                 JSON_VALUES.map(json.dumps), JSON_VALUES.map(lambda value: dumps(value).encode())))
@example("\ufeff[1]")
@example(b"\xef\xbb\xbf[1]")
@example("NaN")
def test_a_decoder_made_once_reads_every_text_as_loads_does(text: str | bytes) -> None:
    def not_json(name: str) -> float:
        raise ValueError(f"{name} is not JSON")

    assert outcome(loader(parse_constant=not_json), text) == outcome(
        lambda line: loads(line, parse_constant=not_json), text)


@MANY
@given(st.one_of(st.binary(max_size=60), JSON_VALUES.map(lambda value: json.dumps(value).encode())))
def test_the_mcp_line_check_decides_every_line(line: bytes) -> None:
    checked = check(line)
    if checked.reply is not None:
        reply = json.loads(checked.reply)
        assert reply["jsonrpc"] == "2.0" and reply["error"]["code"] in (-32700, -32600)
        assert checked.reply.endswith(b"\n") and checked.reply.count(b"\n") == 1
