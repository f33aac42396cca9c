"""/source: the raw text of the open document or a path."""

from __future__ import annotations

from pathlib import Path

from tests.commands.documents import README, body, make_notes


def test_source_of_the_open_document(ws: Path, dispatcher) -> None:
    make_notes(ws)
    dispatcher.execute("/open README.md#tip")
    assert dispatcher.execute("/source").text == f"re: /source\n[source: README.md]\n---\n{README.rstrip(chr(10))}"


def test_source_of_a_path_and_errors(ws: Path, dispatcher) -> None:
    make_notes(ws)
    assert body(dispatcher.execute("/source todo.md").text) == "[source: todo.md]\n---\n# Todo\n\n## Today\n\n- ship"
    assert body(dispatcher.execute("/source").text) == (
        "ERROR(INVALID_TARGET): No document open.\nOpen one with /open <path>."
    )
    assert dispatcher.execute("/source nowhere.md").code == "NOT_FOUND"
    assert dispatcher.execute("/source logo.png").code == "BINARY_FILE"
    (ws / "empty.md").write_text("")
    assert body(dispatcher.execute("/source empty.md").text) == "[source: empty.md]\n---\n(empty)"


def test_source_is_cut_at_the_budget(ws: Path, dispatcher) -> None:
    (ws / "big.txt").write_text("".join(f"{i}\n" for i in range(1, 8)))
    dispatcher.execute('/set {_max_lines} = "3"')
    assert body(dispatcher.execute("/source big.txt").text) == (
        "[source: big.txt]\n---\n1\n2\n3\n\n"
        "[cut] Output limit of 3 lines reached; the rest starts at source line 4 of 7. "
        "Read on: /source big.txt --from 4"
    )
