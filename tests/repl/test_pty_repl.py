"""The whole REPL in a real pty, read through a pyte screen as a person sees it (the CPR query is answered)."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.repl.harness import Terminal

GUIDE = "# Guide\n\nIntro.\n\n## Install\n\nRun `make`.\n\n## Use\n\nType.\n"
#: SGR parameters that set a colour (39 and 49, back to the default colour, are allowed).
COLOUR_CODES = {*range(30, 39), *range(40, 49), *range(90, 98), *range(100, 108)}
UP, ENTER, ALT_ENTER, TAB, CTRL_C, CTRL_D, CTRL_R = "\x1b[A", "\r", "\x1b\r", "\t", "\x03", "\x04", "\x12"


@pytest.fixture
def workspace(ws: Path) -> Path:
    (ws / "docs").mkdir()
    (ws / "docs" / "guide.md").write_text(GUIDE)
    (ws / "README.md").write_text("# Readme\n")
    return ws


@pytest.fixture
def term(workspace: Path, tmp_path: Path) -> Iterator[Terminal]:
    terminal = Terminal([], workspace, {"STRINGSH_HISTORY": str(tmp_path / "history"), "HOME": str(tmp_path)})
    try:
        terminal.wait_for(lambda screen: "Ctrl-D quit" in screen)  # the toolbar: drawn only once CPR is answered
        yield terminal
    finally:
        terminal.close()


def prompt_line(screen: str) -> str:
    """The last line that starts with the prompt."""
    return [line for line in screen.splitlines() if line.startswith("›")][-1]


def after_prompt(screen: str) -> str:
    """What is below the last prompt line: continuation lines, the completion menu, the toolbar."""
    return screen.rsplit(prompt_line(screen), 1)[1]


def ready(term: Terminal) -> str:
    """Wait for an empty prompt with its toolbar: keys sent earlier would meet the terminal in line mode."""
    return term.wait_for(lambda s: prompt_line(s) == "›" and s.splitlines()[-1].startswith(" main "))


def answered(term: Terminal, request: str) -> str:
    """Wait until `request` (its first line) was answered: its prompt line, then an empty prompt and the toolbar
    below it. The REPL does not echo a request (it stays on screen after its prompt), so the next prompt is the
    sign its reply is complete."""

    def done(screen: str) -> bool:
        lines = screen.splitlines()
        asked = [i for i, line in enumerate(lines) if line == f"› {request.splitlines()[0]}"]
        return bool(asked) and "›" in lines[asked[-1] + 1 :] and lines[-1].startswith(" main ")

    return term.wait_for(done)


def recall(term: Terminal, keys: str, shown: Callable[[str], bool]) -> None:
    """Send keys that need the history; the prompt loads it just after it appears, so retry from a clean line."""
    for _attempt in range(5):
        term.send(keys)
        try:
            term.wait_for(shown, timeout=2)
            return
        except AssertionError:
            term.send(CTRL_C)
            ready(term)
    raise AssertionError(f"history never answered {keys!r}:\n{term.text()}")


def running(command: str) -> bool:
    """True while a process with exactly this command line exists (the shell's child)."""
    wanted = command.replace(" ", "\x00").encode() + b"\x00"
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "cmdline").read_bytes() == wanted:
                return True
        except OSError:
            continue
    return False


def tab_complete(term: Terminal, typed: str, menu_item: str, expected: str) -> None:
    """Type, wait for the menu to offer the item, Tab to take it (a unique one is taken with the menu closed)."""
    term.send(typed)
    term.wait_for(lambda screen: menu_item in after_prompt(screen))
    term.send(TAB)
    term.wait_for(lambda screen: prompt_line(screen).endswith(expected))


def test_listing_path_and_block_completion_and_toolbar(term: Terminal) -> None:
    term.send("/ls" + ENTER)
    screen = term.wait_for(lambda s: "Listing ./" in s and s.splitlines()[-1].startswith(" main "))  # toolbar back
    assert "  docs/" in screen and "  README.md" in screen

    tab_complete(term, "/open do", "docs/", "/open docs/")
    tab_complete(term, "gu", "guide.md", "/open docs/guide.md")
    tab_complete(term, "#in", "block of docs/guide.md", "/open docs/guide.md#install")
    term.send(ENTER)
    screen = term.wait_for(lambda s: "Opened docs/guide.md#install" in s and "Run make." in s)
    assert "`make`" not in screen and "## Install" not in screen  # rendered as markdown, not source
    term.wait_for(lambda s: "docs/guide.md#install" in s.splitlines()[-1])  # toolbar shows document and block

    term.send("/open #")
    screen = term.wait_for("#use")
    assert "#guide" in screen and "#install" in screen


def test_multiline_body_heredoc_history_and_suggestion(term: Terminal, workspace: Path, tmp_path: Path) -> None:
    term.send("/write notes.md" + ALT_ENTER + "hello" + ALT_ENTER + "world" + ENTER)
    screen = term.wait_for("Created: notes.md (11 bytes, 2 lines)")
    assert "… hello" in screen and "… world" in screen  # the body stayed on screen with continuation marks
    assert (workspace / "notes.md").read_text() == "hello\nworld"
    term.wait_for(lambda s: "undo 1" in s.splitlines()[-1])
    ready(term)

    term.send("/append notes.md <<EOF" + ENTER)
    term.wait_for(lambda s: prompt_line(s) == "› /append notes.md <<EOF")
    term.send("more" + ENTER + "EOF" + ENTER)
    term.wait_for("Appended to: notes.md")
    assert (workspace / "notes.md").read_text() == "hello\nworld\nmore\n"
    ready(term)

    # Up recalls the last request, whole; Ctrl-C drops it again
    recall(term, UP, lambda s: prompt_line(s) == "› /append notes.md <<EOF" and "… EOF" in after_prompt(s))
    term.send(CTRL_C)
    ready(term)

    # Ctrl-R finds an older request; Enter takes it, Enter sends it
    recall(term, CTRL_R + "write", lambda s: "I-search backward: write" in s and "› /write notes.md" in s)
    term.send(ENTER)
    term.wait_for(lambda s: "I-search backward" not in s)
    term.send(ENTER)
    term.wait_for("Written: notes.md (11 bytes, 2 lines)")  # the reply itself: the file existed, so `Written`
    ready(term)

    # auto-suggestion from history: the rest of the line shows after the typed text
    recall(term, "/app", lambda s: prompt_line(s).startswith("› /append notes.md <<EOF"))
    term.send(CTRL_C)
    assert "+/write notes.md\n+hello\n+world" in (tmp_path / "history").read_text()


def test_ctrl_c_interrupts_a_running_shell_command(term: Terminal) -> None:
    sleep = f"sleep 30.{os.getpid()}"  # a command line no other process on this machine has
    term.send(f"!{sleep}" + ENTER)
    deadline = time.monotonic() + 20
    while not running(sleep) and time.monotonic() < deadline:
        term.pump()
    assert running(sleep)
    term.send(CTRL_C)
    screen = term.wait_for(re.compile(r"exit: (130|143) \| cwd: ").search)
    assert "interrupting" in screen
    assert not running(sleep)
    screen = ready(term)
    assert re.search(r"bash \./ exit (130|143)", screen.splitlines()[-1])  # the toolbar has the shell's state
    term.send("!echo still here" + ENTER)
    term.wait_for("exit: 0 | cwd:")
    assert "still here" in term.text()


def test_ctrl_c_cancels_the_input_and_ctrl_d_leaves(term: Terminal) -> None:
    term.send("/write half-typed")
    term.wait_for("/write half-typed")
    term.send(CTRL_C)
    term.wait_for(lambda s: prompt_line(s) == "›")
    term.send("/nope" + ENTER)
    screen = term.wait_for("ERROR(COMMAND_UNSUPPORTED)")
    assert "Use /help to see available commands." in screen
    ready(term)
    term.send(CTRL_D)
    assert term.wait_exit() == 0


def test_no_color_leaves_out_colours(workspace: Path, tmp_path: Path) -> None:
    terminal = Terminal([], workspace, {"STRINGSH_HISTORY": str(tmp_path / "h"), "NO_COLOR": "1"})
    try:
        terminal.wait_for("Ctrl-D quit")
        terminal.send("/nope" + ENTER)
        terminal.wait_for("ERROR(COMMAND_UNSUPPORTED)")
        terminal.send("/open docs/guide.md" + ENTER)
        terminal.wait_for("Opened docs/guide.md")
        ready(terminal)
        terminal.send(CTRL_D)
        assert terminal.wait_exit() == 0
    finally:
        terminal.close()
    sgr = re.findall(rb"\x1b\[([0-9;]*)m", bytes(terminal.transcript))
    colours = [p for params in sgr for p in params.split(b";") if p and int(p) in COLOUR_CODES]
    assert sgr and colours == []


def test_the_toolbar_fits_80_columns_once_the_shell_has_run(workspace: Path, tmp_path: Path) -> None:
    deep = workspace / "docs" / "a-rather-long-folder-name" / "and-another-one"
    deep.mkdir(parents=True)
    env = {"STRINGSH_HISTORY": str(tmp_path / "history"), "HOME": str(tmp_path)}
    term = Terminal([], workspace, env, size=(80, 24))
    try:
        term.wait_for(lambda screen: "Ctrl-D quit" in screen)
        term.send(f"!cd {deep.relative_to(workspace)} && false" + ENTER)
        term.wait_for("exit: 1 | cwd:")
        screen = term.wait_for(lambda s: " exit 1" in s.splitlines()[-1])
        bar = screen.splitlines()[-1]
        assert bar.startswith(" main ") and bar.endswith(("undo 0", "Alt-Enter newline", "Ctrl-D quit")), bar
        assert "another-one exit 1" in bar and len(bar) <= 80
    finally:
        term.close()


@pytest.mark.needs("less")
def test_long_help_is_paged_and_short_help_is_not(workspace: Path, tmp_path: Path) -> None:
    env = {"STRINGSH_HISTORY": str(tmp_path / "history"), "HOME": str(tmp_path)}
    term = Terminal([], workspace, env, size=(80, 24))
    try:
        term.wait_for(lambda screen: "Ctrl-D quit" in screen)
        term.send("/help edit" + ENTER)
        screen = term.wait_for(lambda s: s.splitlines()[-1].startswith(":"))  # less's prompt: one page shown
        assert "Ctrl-D quit" not in screen and "/edit" in screen
        term.send("q")
        term.wait_for(lambda s: "Ctrl-D quit" in s.splitlines()[-1])  # back at the prompt
        term.send("/help close" + ENTER)  # fits the screen: printed, no pager
        term.wait_for(lambda s: "Help: /close" in s and "Ctrl-D quit" in s.splitlines()[-1])
    finally:
        term.close()
