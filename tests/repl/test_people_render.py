"""Replies rendered for people in the REPL (a real pty read through pyte). Help is markdown with
columns that wrap inside their cell; links show their label as a link and where they lead discreetly; a change
stringsh itself makes refreshes the open view instead of marking it stale. The plain wire is unchanged."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from stringsh.repl.app import REFRESH_SECONDS
from tests.conftest import run_stringsh
from tests.repl.harness import Terminal
from tests.repl.test_pty_repl import ALT_ENTER, ENTER, ready

NOTES = "# Notes\n\nSee [#892](https://github.com/org/repo/issues/892) for details.\n"


@pytest.fixture
def term(ws: Path, tmp_path: Path) -> Iterator[Terminal]:
    (ws / "notes.md").write_text(NOTES)
    terminal = Terminal([], ws, {"HOME": str(tmp_path)}, size=(100, 90))  # /help fits whole
    try:
        terminal.wait_for("Ctrl-D quit")
        yield terminal
    finally:
        terminal.close()


def toolbar(screen: str) -> str:
    return screen.splitlines()[-1]


def never_stale(term: Terminal) -> None:
    """The toolbar checks staleness on its own redraws (every REFRESH_SECONDS, at most once a second); watch
    through a few of them. Load can only make this pass on broken code, never fail on working code."""
    deadline = time.monotonic() + 3 * REFRESH_SECONDS
    while time.monotonic() < deadline:
        term.pump()
        assert "stale" not in toolbar(term.text()), term.text()


def test_help_is_markdown_with_columns_that_wrap_inside_their_cell(term: Terminal) -> None:
    term.send("/help" + ENTER)
    screen = term.wait_for("Use /help <command> for a page")
    lines = screen.splitlines()
    assert "## String Commands" not in screen and "### Navigation" not in screen
    assert "Navigation" in lines and "Editing" in lines  # section titles on their own lines, no markup
    nav = next(index for index, line in enumerate(lines) if line.startswith("/nav [name | page | scaffold]"))
    description = lines[nav].index("Show the page's menus")
    follow = lines[nav + 1]
    assert follow[:description].strip() == "" and follow[description:].startswith(("a menu", "or a menu", "its"))


def test_links_show_their_label_and_where_they_lead(term: Terminal) -> None:
    term.send("/open notes.md" + ENTER)
    screen = term.wait_for("Opened notes.md")
    screen = term.wait_for("for details.")
    assert "See #892 (https://github.com/org/repo/issues/892) for details." in screen
    assert "@link" not in screen and "][@" not in screen
    row = next(y for y, line in enumerate(screen.splitlines()) if line.startswith("See #892"))
    assert term.screen.buffer[row][4].underscore  # the label reads as a link
    assert not term.screen.buffer[row][10].underscore  # its target does not


def test_a_change_stringsh_makes_refreshes_the_open_view(term: Terminal, ws: Path) -> None:
    term.send("/open notes.md" + ENTER)
    term.wait_for(lambda s: "notes.md" in toolbar(s))
    ready(term)
    term.send("/append notes.md" + ALT_ENTER + "more" + ENTER)
    term.wait_for("Appended to: notes.md")
    screen = ready(term)
    assert "notes.md" in toolbar(screen)
    never_stale(term)
    term.send("/undo" + ENTER)
    term.wait_for("Undo: reverted notes.md")
    screen = ready(term)
    assert "stale" not in toolbar(screen)
    (ws / "notes.md").write_text(NOTES + "\nChanged by another program.\n")  # not ours: the mark stays useful
    term.wait_for(lambda s: "(stale: /refresh)" in toolbar(s))


def test_the_plain_wire_keeps_its_text(ws: Path) -> None:
    (ws / "notes.md").write_text(NOTES)
    out = run_stringsh(["-c", "/open notes.md"], ws).stdout.decode()
    assert "See [#892][@link-1] for details." in out
    out = run_stringsh(["-c", "/help"], ws).stdout.decode()
    assert "## String Commands\n\n### Navigation\n/back " in out
