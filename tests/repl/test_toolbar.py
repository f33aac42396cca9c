"""The bottom toolbar's state, read from a real dispatcher after real commands (documents, shell, journal, watcher)."""

from __future__ import annotations

import re
import time
from pathlib import Path

from stringsh.dispatcher import Dispatcher
from stringsh.repl.toolbar import ToolbarState, is_stale, short_path, toolbar_fragments, undo_depth
from stringsh.workspace.state import state_folder


def toolbar_text(state: ToolbarState, dispatcher: Dispatcher) -> str:
    session = dispatcher.session("main")
    return "".join(text for _style, text in toolbar_fragments(state, session, dispatcher.root, dispatcher.workspace))


def run(dispatcher: Dispatcher, state: ToolbarState, text: str) -> str:
    reply = dispatcher.execute(text)
    state.refresh(dispatcher, dispatcher.session("main"))
    state.note_reply(reply.text)
    return reply.text


def test_a_fresh_topic(ws: Path, dispatcher: Dispatcher) -> None:
    state = ToolbarState()
    state.refresh(dispatcher, dispatcher.session("main"))
    text = toolbar_text(state, dispatcher)
    assert text.startswith(" main ") and "no document" in text and "undo 0" in text and "bash" not in text
    assert not (state_folder(ws) / "journal.db").exists()  # counting undo steps creates no journal


def test_document_block_and_undo_depth(ws: Path, dispatcher: Dispatcher) -> None:
    (ws / "g.md").write_text("# G\n\n## Part\n\ntext\n")
    state = ToolbarState()
    run(dispatcher, state, "/open g.md#part")
    assert (state.document, state.block) == ("g.md", "part")
    assert " g.md#part " in toolbar_text(state, dispatcher)
    run(dispatcher, state, "/write a.md\none")
    run(dispatcher, state, "/write b.md\ntwo")
    assert state.undo_depth == 2
    run(dispatcher, state, "/undo")
    assert state.undo_depth == 1 and "undo 1" in toolbar_text(state, dispatcher)
    assert undo_depth(dispatcher, "other-topic") == 0
    run(dispatcher, state, "/close")
    assert state.document is None and "no document" in toolbar_text(state, dispatcher)


def test_stale_mark_follows_the_file_on_disk(ws: Path, dispatcher: Dispatcher) -> None:
    doc = ws / "g.md"
    doc.write_text("# G\n")
    state = ToolbarState()
    run(dispatcher, state, "/open g.md")
    session = dispatcher.session("main")
    assert not is_stale(session, dispatcher.workspace)
    doc.write_text("# G changed\n")
    deadline = time.monotonic() + 20
    while not is_stale(session, dispatcher.workspace) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert is_stale(session, dispatcher.workspace)
    state._stale_at = 0.0  # the toolbar checks at most once a second; this test need not wait for that
    assert "(stale: /refresh)" in toolbar_text(state, dispatcher)
    run(dispatcher, state, "/refresh")
    assert not is_stale(dispatcher.session("main"), dispatcher.workspace)


def test_shell_folder_and_last_status(ws: Path, dispatcher: Dispatcher) -> None:
    (ws / "docs").mkdir()
    state = ToolbarState()
    run(dispatcher, state, "!cd docs")
    assert state.bash_cwd == str(ws.resolve() / "docs") and state.bash_exit == 0
    fragments = toolbar_fragments(state, dispatcher.session("main"), dispatcher.root, dispatcher.workspace)
    assert ("class:toolbar.doc", "./docs") in fragments and ("class:toolbar.ok", "exit 0") in fragments
    run(dispatcher, state, "!false")
    fragments = toolbar_fragments(state, dispatcher.session("main"), dispatcher.root, dispatcher.workspace)
    assert ("class:toolbar.fail", "exit 1") in fragments
    (ws / "g.md").write_text("# G\n")
    run(dispatcher, state, "/open g.md")
    run(dispatcher, state, "/close")  # closes the shell too
    assert state.bash_cwd is None and state.bash_exit is None


def test_note_reply_reads_only_shell_replies() -> None:
    state = ToolbarState()
    state.note_reply("re: /ls\nListing ./\n---\n  exit: 3 | cwd: /nope")
    assert state.bash_exit is None
    state.note_reply("re: !x\nexit: 127 | cwd: /w/sub\n---\nbash: x: command not found")
    assert (state.bash_exit, state.bash_cwd) == (127, "/w/sub")
    state.note_reply("garbage")
    assert state.bash_exit == 127


def test_short_path(tmp_path: Path) -> None:
    assert short_path(str(tmp_path), tmp_path) == "./"
    assert short_path(str(tmp_path / "a" / "b"), tmp_path) == "./a/b"
    assert short_path("/elsewhere", tmp_path) == "/elsewhere"


def test_read_only_shows_while_changes_are_refused(ws: Path, dispatcher: Dispatcher) -> None:
    """Degraded mode (here: another process holds the workspace lock too long) is on the toolbar until a change
    gets through."""
    import fcntl
    import os

    state = ToolbarState()
    run(dispatcher, state, "/write a.md\none")
    dispatcher.workspace.state.lock_wait = 0.1
    other = os.open(state_folder(ws) / "lock", os.O_RDWR)
    try:
        fcntl.flock(other, fcntl.LOCK_EX)
        assert run(dispatcher, state, "/write a.md\ntwo").startswith("re: /write a.md\nERROR(BUSY): Another process")
        assert toolbar_text(state, dispatcher).endswith(  # at 80 columns the key hints make room for it
            " │ read-only: the workspace is locked by another process")
    finally:
        os.close(other)
    run(dispatcher, state, "/write a.md\ntwo")
    assert "read-only" not in toolbar_text(state, dispatcher)


def test_the_bar_fits_80_columns_in_every_state(ws: Path, dispatcher: Dispatcher) -> None:
    deep = ws / "docs" / "a-rather-long-folder-name" / "and-another-one"
    deep.mkdir(parents=True)
    (deep / "the-document-with-a-long-name.md").write_text("# T\n\n## Section with a long heading\n\nx\n")
    state = ToolbarState()
    run(dispatcher, state, "/write w.md <<EOF\nx\nEOF")
    assert toolbar_text(state, dispatcher).endswith("Alt-Enter newline · Ctrl-D quit")  # room: the full hints
    run(dispatcher, state, f"!cd {deep.relative_to(ws)}")
    run(dispatcher, state, "!false")
    rel = (deep / "the-document-with-a-long-name.md").relative_to(ws)
    run(dispatcher, state, f"/open {rel}#section-with-a-long-heading")
    session = dispatcher.session("main")
    for width in (80, 60):
        text = "".join(t for _s, t in toolbar_fragments(state, session, dispatcher.root, dispatcher.workspace, width))
        assert len(text) <= width, text
        assert "heading" in text and "another-one" in text and " exit 1" in text and "undo 1" in text  # the ends


def test_narrow_bars_keep_the_undo_depth_and_end_with_a_field(ws: Path, dispatcher: Dispatcher) -> None:
    (ws / "docs").mkdir()
    (ws / "docs" / "guide.md").write_text("# Guide\n\n## Install\n\nx\n")
    state = ToolbarState()
    run(dispatcher, state, "/write notes.md\nhello")
    run(dispatcher, state, "/open docs/guide.md#install")
    run(dispatcher, state, "!cd docs && false")
    session = dispatcher.session("main")

    def bar(width: int) -> str:
        return "".join(t for _s, t in toolbar_fragments(state, session, dispatcher.root, dispatcher.workspace, width))

    assert [bar(width) for width in (50, 45, 40, 35, 30, 20, 4)] == [
        " main  │ …md#install │ bash ./docs exit 1 │ undo 1",  # the paths keep their ends
        " main  │ …md#install │ ./docs exit 1 │ undo 1",  # then the `bash` label goes
        " main  │ …e.md#install │ exit 1 │ undo 1",  # then the shell's folder; its status stays
        " main  │ …install │ exit 1 │ undo 1",
        " main  │ ….md#install │ undo 1",  # then the shell's field
        " main  │ …install",  # narrower than any layout: whole fields only
        " mai",
    ]
    for width in range(4, 130):
        text = bar(width)
        assert len(text) <= width and not text.rstrip().endswith("│"), (width, text)  # no dangling separator
        assert width < 30 or re.search(r"│ +undo 1", text), (width, text)
