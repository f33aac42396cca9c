"""/undo: multi-level, per topic and per client (a restart starts afresh), CONFLICT when the file changed since."""

from __future__ import annotations

from pathlib import Path

from stringsh.dispatcher import Dispatcher


def test_nothing_to_undo(dispatcher) -> None:
    assert dispatcher.execute("/undo").text == (
        "re: /undo\nERROR(NOT_FOUND): Nothing to undo.\n"
        "/changes lists the changes there are."
    )


def test_multi_level_walks_back(ws: Path, dispatcher) -> None:
    dispatcher.execute("/write a.md\none\n")
    dispatcher.execute("/write a.md\none\ntwo\n")
    dispatcher.execute("/append a.md\nthree\n")
    assert dispatcher.execute("/undo").text == (
        "re: /undo\nUndo: reverted a.md (2 lines)"
    )
    assert dispatcher.execute("/undo").text == "re: /undo\nUndo: reverted a.md (1 line)"
    assert dispatcher.execute("/undo").text == "re: /undo\nUndo: deleted a.md (was newly created)"
    assert dispatcher.execute("/undo").text == (
        "re: /undo\nERROR(NOT_FOUND): Nothing to undo.\n"
        "/changes lists the changes there are."
    )
    assert not (ws / "a.md").exists()


def test_undo_is_per_topic(ws: Path, dispatcher) -> None:
    dispatcher.execute("/write a.md\na\n", topic="one")
    dispatcher.execute("/write b.md\nb\n", topic="two")
    assert dispatcher.execute("/undo", topic="one").text == "re: /undo\nUndo: deleted a.md (was newly created)"
    assert dispatcher.execute("/undo", topic="one").text == (
        "re: /undo\nERROR(NOT_FOUND): Nothing to undo.\n"
        "/changes lists the changes there are."
    )
    assert (ws / "b.md").exists()


def test_a_restart_starts_with_nothing_to_undo(ws: Path) -> None:
    """Undo is per client, like the read guard; the earlier changes stay in the journal."""
    first = Dispatcher(ws)
    first.execute("/write a.md\nv1\n")
    first.execute("/write a.md\nv2\n")
    first.close()
    second = Dispatcher(ws)
    assert second.execute("/undo").text == (
        "re: /undo\nERROR(NOT_FOUND): Nothing to undo.\n"
        "/changes lists the changes there are."
    )
    assert (ws / "a.md").read_text() == "v2\n"
    assert [row.state for row in second.workspace.history()] == ["done", "done"]
    second.close()


def test_conflict_when_the_file_changed_since(ws: Path, dispatcher) -> None:
    dispatcher.execute("/write a.md\nmine\n")
    (ws / "a.md").write_text("edited by hand\n")
    assert dispatcher.execute("/undo").text == (
        "re: /undo\nERROR(CONFLICT): Refusing to undo: a.md changed since change 1 wrote it.\n"
        "Nothing was changed; open a.md to see it, or /undo --skip to leave it and go on to older changes."
    )
    assert (ws / "a.md").read_text() == "edited by hand\n"


def test_undo_of_a_deleted_file_conflicts_too(ws: Path, dispatcher) -> None:
    (ws / "a.md").write_text("before\n")
    dispatcher.execute("/write --force a.md\nmine\n")
    (ws / "a.md").unlink()
    assert dispatcher.execute("/undo").code == "CONFLICT"
    assert not (ws / "a.md").exists()


def test_undo_of_a_created_file_deleted_since_is_a_step_done(ws: Path, dispatcher) -> None:
    """The file already holds its before-state (absent), so nothing is refused and nothing written."""
    dispatcher.execute("/write a.md\nmine\n")
    (ws / "a.md").unlink()
    assert dispatcher.execute("/undo").text == (
        "re: /undo\nUndo: a.md is already gone (change 1 created it), nothing written"
    )
    assert dispatcher.execute("/undo").text == (
        "re: /undo\nERROR(NOT_FOUND): Nothing to undo.\n"
        "/changes lists the changes there are."
    )


def test_restores_bytes_exactly(ws: Path, dispatcher) -> None:
    raw = b"\xef\xbb\xbfx\r\ny\rz"
    (ws / "odd.txt").write_bytes(raw)
    dispatcher.execute("/write --force odd.txt\nnew\n")
    assert dispatcher.execute("/undo").text == "re: /undo\nUndo: reverted odd.txt (3 lines)"
    assert (ws / "odd.txt").read_bytes() == raw


def test_arguments_are_refused(dispatcher) -> None:
    assert dispatcher.execute("/undo 3").text == (
        "re: /undo 3\nERROR(INVALID_PAYLOAD): Usage: /undo [--skip]\n"
        "/undo takes no other arguments; repeat it to go further back."
    )
