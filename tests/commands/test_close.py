"""/close with nothing open."""

from __future__ import annotations


def test_close_with_nothing_open(dispatcher) -> None:
    assert dispatcher.execute("/close").text == (
        "re: /close\nERROR(INVALID_TARGET): No document open.\nOpen one with /open <path>."
    )
