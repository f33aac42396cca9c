"""/info with nothing open."""

from __future__ import annotations


def test_info_with_no_document(ws, dispatcher) -> None:
    assert dispatcher.execute("/info").text == (
        "re: /info\nSession info\n---\n"
        "topic:     main\n"
        f"root:      {ws.resolve()}\n"
        "cwd:       ./\n"
        "file:      (none open)\n"
        "history:   0 entries\n"
        "vars:      (none)"
    )


def test_info_lists_variables(dispatcher) -> None:
    dispatcher.execute('/set {a} = "1"\nb = two')
    assert dispatcher.execute("/info").text.endswith('\nvars:      {a}="1", {b}="two"')
