"""/undo: multi-level, per topic, persisted across restarts, CONFLICT when the file changed since."""

from __future__ import annotations

from pathlib import Path

from stringsh.dispatcher import Dispatcher


def test_nothing_to_undo(dispatcher) -> None:
    assert dispatcher.execute("/undo").text == "re: /undo\nERROR(NOT_FOUND): Nothing to undo."


def test_multi_level_walks_back(ws: Path, dispatcher) -> None:
    dispatcher.execute("/write a.md\none\n")
    dispatcher.execute("/write a.md\none\ntwo\n")
    dispatcher.execute("/append a.md\nthree\n")
    assert dispatcher.execute("/undo").text == "re: /undo\nUndo: reverted a.md (2 lines)"
    assert dispatcher.execute("/undo").text == "re: /undo\nUndo: reverted a.md (1 lines)"
    assert dispatcher.execute("/undo").text == "re: /undo\nUndo: deleted a.md (was newly created)"
    assert dispatcher.execute("/undo").text == "re: /undo\nERROR(NOT_FOUND): Nothing to undo."
    assert not (ws / "a.md").exists()


def test_undo_is_per_topic(ws: Path, dispatcher) -> None:
    dispatcher.execute("/write a.md\na\n", topic="one")
    dispatcher.execute("/write b.md\nb\n", topic="two")
    assert dispatcher.execute("/undo", topic="one").text == "re: /undo\nUndo: deleted a.md (was newly created)"
    assert dispatcher.execute("/undo", topic="one").text == "re: /undo\nERROR(NOT_FOUND): Nothing to undo."
    assert (ws / "b.md").exists()


def test_persisted_across_restarts(ws: Path) -> None:
    first = Dispatcher(ws)
    first.execute("/write a.md\nv1\n")
    first.execute("/write a.md\nv2\n")
    first.close()
    second = Dispatcher(ws)
    assert second.execute("/undo").text == "re: /undo\nUndo: reverted a.md (1 lines)"
    assert (ws / "a.md").read_text() == "v1\n"
    second.close()


def test_conflict_when_the_file_changed_since(ws: Path, dispatcher) -> None:
    dispatcher.execute("/write a.md\nmine\n")
    (ws / "a.md").write_text("edited by hand\n")
    assert dispatcher.execute("/undo").text == (
        "re: /undo\nERROR(CONFLICT): Refusing to undo: a.md changed since change 1 wrote it.\n"
        "Open a.md to see its current content; nothing was changed."
    )
    assert (ws / "a.md").read_text() == "edited by hand\n"


def test_undo_of_a_deleted_file_conflicts_too(ws: Path, dispatcher) -> None:
    dispatcher.execute("/write a.md\nmine\n")
    (ws / "a.md").unlink()
    assert dispatcher.execute("/undo").code == "CONFLICT"


def test_restores_bytes_exactly(ws: Path, dispatcher) -> None:
    raw = b"\xef\xbb\xbfx\r\ny\rz"
    (ws / "odd.txt").write_bytes(raw)
    dispatcher.execute("/write --force odd.txt\nnew\n")
    assert dispatcher.execute("/undo").text == "re: /undo\nUndo: reverted odd.txt (3 lines)"
    assert (ws / "odd.txt").read_bytes() == raw


def test_arguments_are_refused(dispatcher) -> None:
    assert dispatcher.execute("/undo 3").text == (
        "re: /undo 3\nERROR(INVALID_PAYLOAD): Usage: /undo\n/undo takes no arguments; repeat it to go further back."
    )
