"""Tab and Enter as pgcli, ptpython and IPython users expect, in a real pty read through pyte.

A unique completion is taken with the menu closed (a command name gets its space), so Tab goes on into a folder
and the next Enter sends; `#blocks` complete after a quoted path; Enter in the middle of a recalled request of
several lines adds a line instead of sending it half-edited.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.repl.harness import Terminal
from tests.repl.test_pty_repl import CTRL_C, ENTER, GUIDE, TAB, UP, after_prompt, prompt_line, ready, recall


@pytest.fixture
def workspace(ws: Path) -> Path:
    (ws / "docs").mkdir()
    (ws / "docs" / "guide.md").write_text(GUIDE)
    (ws / "README.md").write_text("# Readme\n")
    (ws / "my folder").mkdir()
    (ws / "my folder" / "a b.md").write_text("# A B\n\n## Start here\n")
    return ws


@pytest.fixture
def term(workspace: Path, tmp_path: Path) -> Iterator[Terminal]:
    terminal = Terminal([], workspace, {"STRINGSH_HISTORY": str(tmp_path / "history"), "HOME": str(tmp_path)})
    try:
        terminal.wait_for("Ctrl-D quit")
        yield terminal
    finally:
        terminal.close()


def test_a_unique_command_completion_gets_a_space_and_enter_sends(term: Terminal) -> None:
    term.send("/op")
    term.wait_for(lambda s: "/open" in after_prompt(s))
    term.send(TAB)
    term.wait_for(lambda s: prompt_line(s) == "› /open")
    term.send("REA")
    term.wait_for(lambda s: prompt_line(s) == "› /open REA" and "README.md" in after_prompt(s))
    term.send(TAB)
    term.wait_for(lambda s: prompt_line(s) == "› /open README.md")
    term.send(ENTER)  # the first Enter sends: the menu was closed when the completion was taken
    screen = term.wait_for("Opened README.md")
    assert "/openREA" not in screen


def test_tab_goes_on_into_a_folder(term: Terminal) -> None:
    term.send("/open do")
    term.wait_for(lambda s: "docs/" in after_prompt(s))
    term.send(TAB)
    term.wait_for(lambda s: prompt_line(s) == "› /open docs/" and "guide.md" in after_prompt(s))
    term.send(TAB)  # into the folder, not back to what was typed
    term.wait_for(lambda s: prompt_line(s) == "› /open docs/guide.md")
    term.send(ENTER)
    term.wait_for("Opened docs/guide.md")


def test_blocks_complete_after_a_quoted_path(term: Terminal) -> None:
    term.send("/open 'my folder/a b.md'#")
    screen = term.wait_for(lambda s: "#start-here" in after_prompt(s))
    assert "#a-b" in after_prompt(screen)
    term.send("st")
    term.wait_for(lambda s: prompt_line(s) == "› /open 'my folder/a b.md'#st")
    term.send(TAB)
    term.wait_for(lambda s: prompt_line(s) == "› /open 'my folder/a b.md'#start-here")
    term.send(ENTER)
    term.wait_for("Opened my folder/a b.md#start-here")


def test_enter_inside_a_recalled_heredoc_adds_a_line(term: Terminal, workspace: Path) -> None:
    (workspace / "notes.md").write_text("")
    term.send("/append notes.md <<EOF" + ENTER + "more" + ENTER + "EOF" + ENTER)
    term.wait_for("Appended to: notes.md")
    ready(term)
    recall(term, UP, lambda s: prompt_line(s) == "› /append notes.md <<EOF" and "… EOF" in after_prompt(s))
    term.send(UP)  # the cursor goes up into the body
    term.send(ENTER)  # a newline there, not a request sent from the middle of its body
    term.wait_for(lambda s: after_prompt(s).count("…") == 3)
    assert (workspace / "notes.md").read_text() == "more\n"
    assert term.transcript.count(b"Appended to: notes.md") == 1
    term.send(CTRL_C)
    ready(term)


def test_enter_at_the_end_of_a_recalled_heredoc_sends_it(term: Terminal, workspace: Path) -> None:
    (workspace / "notes.md").write_text("")
    term.send("/append notes.md <<EOF" + ENTER + "more" + ENTER + "EOF" + ENTER)
    term.wait_for("Appended to: notes.md")
    ready(term)
    recall(term, UP, lambda s: prompt_line(s) == "› /append notes.md <<EOF" and "… EOF" in after_prompt(s))
    term.send(ENTER)
    term.wait_for_transcript_count(b"Appended to: notes.md", 2)
    assert (workspace / "notes.md").read_text() == "more\nmore\n"
