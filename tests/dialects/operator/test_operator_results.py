"""The OPERATOR_RESULT formatter: the protocol's exact layout, a summary always one line, details as base64 UTF-8,
and the inverse parse a client uses."""

from __future__ import annotations

from stringsh.dialects.operator.results import format_result, parse_results
from stringsh.protocol.operator_model import Result


def test_layout_with_details_and_without_id() -> None:
    assert format_result(Result("a-1", True, "Read file", "héllo\n")) == (
        "OPERATOR_RESULT\nid: a-1\nok: true\nsummary: Read file\ndetails_b64: aMOpbGxvCg==\nEND_OPERATOR_RESULT\n")
    assert format_result(Result(None, False, "no id")) == (
        "OPERATOR_RESULT\nok: false\nsummary: no id\nEND_OPERATOR_RESULT\n")


def test_a_summary_with_line_breaks_stays_one_line() -> None:
    text = format_result(Result("x", False, "first\nsecond\r\nthird\rfourth"))
    assert text == "OPERATOR_RESULT\nid: x\nok: false\nsummary: first second third fourth\nEND_OPERATOR_RESULT\n"


def test_parse_is_the_inverse() -> None:
    results = [Result("a", True, "one", "x\ny\n"), Result(None, False, "two")]
    assert parse_results("prose\n" + "".join(map(format_result, results)) + "more prose\n") == results
