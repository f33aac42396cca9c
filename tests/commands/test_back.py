"""/back: the topic's document history."""

from __future__ import annotations

from pathlib import Path

from tests.commands.documents import body, make_notes


def test_no_history(dispatcher) -> None:
    assert dispatcher.execute("/back").text == "re: /back\nERROR(INVALID_TARGET): No previous page in history."


def test_back_returns_to_the_previous_document_and_block(ws: Path, dispatcher) -> None:
    make_notes(ws)
    dispatcher.execute("/open README.md#setup")
    dispatcher.execute("/open todo.md")
    assert dispatcher.execute("/back").text == (
        "re: /back\nBack to README.md#setup\n---\n## Setup\n\nInstall the tools, then run `make`."
    )
    assert body(dispatcher.execute("/back").text) == "ERROR(INVALID_TARGET): No previous page in history."


def test_back_reads_the_file_again_or_falls_back_to_what_was_read(ws: Path, dispatcher) -> None:
    make_notes(ws)
    dispatcher.execute("/open todo.md")
    dispatcher.execute("/open notes.txt")
    (ws / "todo.md").write_text("# Todo\n\nchanged\n")
    assert body(dispatcher.execute("/back").text) == "Back to todo.md\n---\n# Todo\n\nchanged"
    dispatcher.execute("/open notes.txt")
    (ws / "todo.md").unlink()
    assert body(dispatcher.execute("/back").text) == "Back to todo.md\n---\n# Todo\n\nchanged"


def test_back_takes_no_arguments(dispatcher) -> None:
    assert dispatcher.execute("/back now").code == "INVALID_PAYLOAD"


def test_history_is_bounded(ws: Path, dispatcher) -> None:
    from stringsh.documents.service import HISTORY_LIMIT

    for i in range(HISTORY_LIMIT + 5):
        (ws / f"d{i}.md").write_text(f"# D{i}\n")
        dispatcher.execute(f"/open d{i}.md")
    history = dispatcher.sessions["main"].history
    assert len(history) == HISTORY_LIMIT
    assert history[0].path == "d4.md"
