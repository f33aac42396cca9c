"""/refresh and staleness: outside changes are noticed, shown by /info, and block edits on stale views refused."""

from __future__ import annotations

from pathlib import Path

from tests.commands.documents import body, make_notes


def test_nothing_open(dispatcher) -> None:
    assert dispatcher.execute("/refresh").text == (
        "re: /refresh\nERROR(INVALID_TARGET): No document open.\nOpen one with /open <path>."
    )


def test_outside_change_is_stale_until_refresh(ws: Path, dispatcher) -> None:
    make_notes(ws)
    dispatcher.execute("/open todo.md#today")
    assert "stale:" not in dispatcher.execute("/info").text
    (ws / "todo.md").write_text("# Todo\n\n## Today\n\n- ship\n- test\n")
    assert "stale:     yes, the file changed on disk since it was opened (/refresh reloads it)" in (
        dispatcher.execute("/info").text
    )
    edit = dispatcher.execute("/edit #today\n- lost?\n")
    assert body(edit.text) == (
        "ERROR(CONFLICT): Refusing to edit todo.md#today: the block changed since this topic read it; nothing was "
        "written.\nIts text now:\n## Today\n\n- ship\n- test\n"
        "Redo the edit on this text: /edit todo.md#today with the new body."
    )
    assert (ws / "todo.md").read_text().endswith("- test\n")
    assert dispatcher.execute("/refresh").text == (
        "re: /refresh\nRefreshed todo.md\n---\n## Today\n\n- ship\n- test"
    )
    assert "stale:" not in dispatcher.execute("/info").text
    assert body(dispatcher.execute("/edit #today\n- done\n").text) == (
        "Edited todo.md#today (5 lines): 2 lines replaced by 1 line"
    )
    assert "stale:" not in dispatcher.execute("/info").text  # our own write does not make the view stale


def test_same_bytes_rewritten_is_not_stale(ws: Path, dispatcher) -> None:
    make_notes(ws)
    dispatcher.execute("/open todo.md")
    (ws / "todo.md").write_text((ws / "todo.md").read_text())
    assert "stale:" not in dispatcher.execute("/info").text


def test_refresh_when_the_block_is_gone(ws: Path, dispatcher) -> None:
    make_notes(ws)
    dispatcher.execute("/open todo.md#today")
    (ws / "todo.md").write_text("# Todo\n")
    assert body(dispatcher.execute("/refresh").text) == (
        "ERROR(BLOCK_NOT_FOUND): Block not found: #today in todo.md\nAvailable blocks: todo"
    )


def test_refresh_when_the_file_is_gone(ws: Path, dispatcher) -> None:
    make_notes(ws)
    dispatcher.execute("/open todo.md")
    (ws / "todo.md").unlink()
    assert "stale:     yes" in dispatcher.execute("/info").text
    assert dispatcher.execute("/refresh").code == "NOT_FOUND"


def test_a_gone_block_does_not_leave_the_topic_stuck(ws: Path, dispatcher) -> None:
    make_notes(ws)
    dispatcher.execute("/open todo.md#today")
    (ws / "todo.md").write_text("# Todo\n\nall done\n")
    assert dispatcher.execute("/refresh").code == "BLOCK_NOT_FOUND"
    assert body(dispatcher.execute("/refresh").text) == "Refreshed todo.md\n---\n# Todo\n\nall done"
    assert body(dispatcher.execute("/open").text) == "Opened todo.md\n---\n# Todo\n\nall done"
    assert "block:" not in dispatcher.execute("/info").text
