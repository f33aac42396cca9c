"""A live REPL. Shell output shows as it arrives, the toolbar stays (with a running mark), and
one Ctrl-C prints one note. The REPL runs in a real pty read through pyte, as a person sees it."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.repl.harness import Terminal
from tests.repl.test_pty_repl import ENTER, ready, running

CTRL_C = "\x03"


@pytest.fixture
def term(ws: Path, tmp_path: Path) -> Iterator[Terminal]:
    terminal = Terminal([], ws, {"STRINGSH_HISTORY": str(tmp_path / "history"), "HOME": str(tmp_path)})
    try:
        terminal.wait_for("Ctrl-D quit")
        yield terminal
    finally:
        terminal.close()


def toolbar(screen: str) -> str:
    return screen.splitlines()[-1]


def test_shell_output_shows_while_the_command_runs_and_the_toolbar_stays(term: Terminal, ws: Path) -> None:
    # the command waits for a file the test creates: no timing involved
    term.send("!echo line 1; echo line 2; while [ ! -e go ]; do sleep 0.1; done; echo done-$((40+2))" + ENTER)
    screen = term.wait_for(lambda s: "\nline 1\nline 2\n" in s and "running" in toolbar(s))
    assert "exit:" not in screen and "done-42" not in screen  # still running
    assert "line 1\nline 2" in screen
    assert re.search(r" running \d+s ", toolbar(screen)) and " main " in toolbar(screen)  # the usual toolbar too
    (ws / "go").write_text("")
    screen = term.wait_for("exit: 0 | cwd:")
    screen = ready(term)
    assert "line 1\nline 2\ndone-42" in screen  # the reply shows the whole output once the command is done
    assert screen.splitlines().count("line 2") == 1  # the live view made way for the reply: nothing is shown twice
    assert "running" not in toolbar(screen)


def test_one_ctrl_c_shows_one_note(term: Terminal) -> None:
    sleep = f"sleep 30.{os.getpid()}"
    term.send(f"!{sleep}" + ENTER)
    deadline = time.monotonic() + 20
    while not running(sleep) and time.monotonic() < deadline:
        term.pump()
    assert running(sleep)
    term.send(CTRL_C)
    screen = term.wait_for(re.compile(r"exit: (130|143) \| cwd: ").search)
    assert "^C interrupting…" in screen
    assert screen.count("^C") == 1  # not `^C^C interrupting…` (the terminal's echo next to ours)


def test_text_typed_while_a_command_runs_starts_the_next_input(term: Terminal, ws: Path) -> None:
    term.send("!echo waiting; while [ ! -e go ]; do sleep 0.1; done" + ENTER)
    term.wait_for(lambda s: "waiting" in s and "running" in toolbar(s))
    term.send("/ls")
    (ws / "go").write_text("")
    term.wait_for(lambda s: "exit: 0 | cwd:" in s and "› /ls" in s)
    term.send(ENTER)
    term.wait_for("Listing ./")
