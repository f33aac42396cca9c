"""History per workspace (never a path from another project) and no `$NAME` assignment on disk
in any form. The REPL runs in a real pty read through pyte; the history file is read as a person would find it."""

from __future__ import annotations

import os
from pathlib import Path

from stringsh.workspace.state import state_key
from tests.repl.harness import Terminal
from tests.repl.test_pty_repl import ALT_ENTER, CTRL_D, ENTER, UP, answered, prompt_line, ready, recall


def start(workspace: Path, home: Path) -> Terminal:
    """The REPL as a person starts it: no STRINGSH_HISTORY, the user's state folder under HOME."""
    terminal = Terminal([], workspace, {"HOME": str(home)})
    terminal.wait_for("Ctrl-D quit")
    return terminal


def history_file(workspace: Path, home: Path) -> Path:
    key = state_key(Path(os.path.realpath(workspace)))
    return home / ".local" / "state" / "stringsh" / "workspaces" / key / "history"


def session(workspace: Path, home: Path, requests: list[str]) -> None:
    terminal = start(workspace, home)
    try:
        for request in requests:
            ready(terminal)
            terminal.send(request + ENTER)
            answered(terminal, request.replace(ALT_ENTER, "\n").replace(ENTER, "\n"))
        ready(terminal)
        terminal.send(CTRL_D)
        assert terminal.wait_exit() == 0
    finally:
        terminal.close()


def test_history_is_kept_per_workspace(tmp_path: Path) -> None:
    home = tmp_path / "home"
    one, two = tmp_path / "one", tmp_path / "two"
    for folder in (home, one, two):
        folder.mkdir()
    (one / "private-plans.md").write_text("# Plans\n")
    session(one, home, ["/open private-plans.md"])
    session(two, home, ["/ls"])

    terminal = start(two, home)
    try:
        recall(terminal, UP, lambda s: prompt_line(s) == "› /ls")  # this workspace's history is there...
        terminal.send(UP)
        terminal.send("x")  # ...and nothing older: Up stayed on `/ls` (the x lands after it)
        terminal.wait_for(lambda s: prompt_line(s) == "› /lsx")
        assert "private-plans" not in terminal.text()
    finally:
        terminal.close()
    assert "+/open private-plans.md" in history_file(one, home).read_text()
    assert "private-plans" not in history_file(two, home).read_text()
    assert not (home / ".local" / "state" / "stringsh" / "history").exists()  # no shared file any more


def test_no_dollar_assignment_reaches_the_file_in_any_form(tmp_path: Path) -> None:
    home, ws = tmp_path / "home", tmp_path / "ws"
    home.mkdir()
    ws.mkdir()
    requests = [
        '/set <<EOF\n$API_TOKEN = "sk-heredoc"\nEOF',  # the form `/help set` recommends for secrets
        '/set' + ALT_ENTER + '$OTHER_TOKEN = "sk-altenter"',
        '/set $LINE_TOKEN = "sk-line"',
        "/set {version} = 1.4.0",
    ]
    session(ws, home, [request.replace("\n", ENTER) for request in requests])
    saved = history_file(ws, home).read_text()
    assert "sk-" not in saved and "TOKEN" not in saved
    assert "+/set {version} = 1.4.0" in saved
