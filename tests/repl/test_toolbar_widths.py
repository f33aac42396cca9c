"""The bottom toolbar laid out for its width (stringsh/repl/toolbar.py STEPS): at 40, 60, 80 and 120 columns, idle
and while a command runs, in a real pty read through pyte. The least important fields shorten or go first; the
undo depth stays; a field that goes takes its separator with it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.repl.harness import Terminal
from tests.repl.test_pty_repl import ALT_ENTER, ENTER, ready

#: The bar once a document block is open, the shell has run `cd docs` (exit 0) and one change can be undone.
BARS = {
    40: " main  │ …e.md#install │ exit 0 │ undo 1",
    60: " main  │ docs/guide.md#install │ bash ./docs exit 0 │ undo 1",
    80: " main   │  docs/guide.md#install  │  bash ./docs exit 0  │  undo 1",
    120: " main   │  docs/guide.md#install  │  bash ./docs exit 0  │  undo 1  │  Alt-Enter newline · Ctrl-D quit",
}
#: The same bar while a command runs, after the running mark (spinner and elapsed time shown as `S` and `T`).
RUNNING = {
    40: " S T   main  │ …ide.md#install │ undo 1",
    60: " S running T   main  │ …md#install │ ./docs exit 0 │ undo 1",
    80: " S running T   main  │ docs/guide.md#install │ bash ./docs exit 0 │ undo 1",
    120: " S running T   main   │  docs/guide.md#install  │  bash ./docs exit 0  │  undo 1  │  Alt-Enter newline"
         " · Ctrl-D quit",
}


def bar(screen: str) -> str:
    return screen.splitlines()[-1]


@pytest.mark.parametrize("columns", sorted(BARS))
def test_the_toolbar_fits_its_width(ws: Path, tmp_path: Path, columns: int) -> None:
    (ws / "docs").mkdir()
    (ws / "docs" / "guide.md").write_text("# Guide\n\n## Install\n\nRun it.\n")
    env = {"STRINGSH_HISTORY": str(tmp_path / "history"), "HOME": str(tmp_path)}
    term = Terminal([], ws, env, size=(columns, 24))
    try:
        term.wait_for(lambda s: bar(s).startswith(" main "))
        for request, reply in [
            ("/write notes.md" + ALT_ENTER + "hello", "Created: notes.md"),
            ("/open docs/guide.md#install", "Opened docs/guide.md#install"),
            ("!cd docs", "exit: 0 | cwd:"),
        ]:
            ready(term)
            term.send(request + ENTER)
            term.wait_for(reply)
        screen = term.wait_for(lambda s: " exit 0" in bar(s) or "exit 0 │" in bar(s))
        assert bar(screen) == BARS[columns]

        # the command waits for a file the test creates, so the running bar is read while it runs
        ready(term)
        term.send("!while [ ! -e go ]; do sleep 0.1; done" + ENTER)
        screen = term.wait_for(lambda s: re.match(r" \S (running )?\d+s ", bar(s)) is not None)
        shown = re.sub(r"^ \S ((?:running )?)\d+s ", r" S \1T ", bar(screen))
        assert shown == RUNNING[columns] and len(bar(screen)) <= columns, bar(screen)
        (ws / "docs" / "go").write_text("")
        term.wait_for(lambda s: bar(s) == BARS[columns])
    finally:
        term.close()
