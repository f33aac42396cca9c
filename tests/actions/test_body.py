"""Body templates: a caller's value is data inside the JSON the author wrote, never JSON syntax."""

from __future__ import annotations

import json

from stringsh.actions.body import fill_body


def fill(template: str, **payload: str) -> str:
    return fill_body(template, payload, {}, lambda path: b"")


def test_value_inside_a_longer_string_is_escaped_not_injected() -> None:
    hostile = 'a", "admin": true, "z": "'
    body = fill('{"text": "hello {msg}!", "tail": "{a} and {b}"}', msg=hostile, a='x"', b="y\\")
    assert json.loads(body) == {"text": f"hello {hostile}!", "tail": 'x" and y\\'}


def test_whole_string_number_and_text_outside_strings() -> None:
    assert fill('{"t": "{t}", "n": {n}}', t='q"\n', n="2") == '{"t": "q\\"\\n", "n": 2}'
    assert fill('{"k": "a\\"{v}"}', v='"') == '{"k": "a\\"\\""}'
