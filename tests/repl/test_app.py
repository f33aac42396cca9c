"""The REPL's prompt and loop driven through prompt_toolkit's pipe input (keys as a terminal sends them)."""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.history import FileHistory, InMemoryHistory, ThreadedHistory
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from stringsh.dispatcher import Dispatcher
from stringsh.repl.app import Repl, workspace_state
from stringsh.repl.history import history_path, open_history
from stringsh.workspace.state import state_key


@pytest.fixture
def history_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "state" / "history"
    monkeypatch.setenv("STRINGSH_HISTORY", str(path))
    return path


@pytest.fixture
def repl(dispatcher: Dispatcher, history_file: Path) -> Iterator[tuple[Repl, object, io.StringIO]]:
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        shell = Repl(dispatcher)
        buffer = io.StringIO()
        shell.console = Console(file=buffer, width=100, color_system=None)
        yield shell, pipe, buffer


def ask(repl_fixture: tuple[Repl, object, io.StringIO], keys: str) -> str:
    shell, pipe, _buffer = repl_fixture
    pipe.send_text(keys)  # type: ignore[attr-defined]
    return shell.prompt.prompt(shell.message)


def run_turns(shell: Repl, pipe: object, *turns: str) -> int:
    """Run the loop on `turns`, each one request's keys, then Ctrl-D. Each turn's keys go in when its prompt is
    asked for: keys sent earlier could meet a running command's live view, which keeps only printable typeahead
    (a busy machine makes a quick command slow enough to show it)."""
    pending = [*turns, "\x04"]
    prompt = shell.prompt.prompt

    def next_turn(*args: object, **kwargs: object) -> str:
        if pending:
            pipe.send_text(pending.pop(0))  # type: ignore[attr-defined]
        return prompt(*args, **kwargs)  # type: ignore[arg-type]

    shell.prompt.prompt = next_turn  # type: ignore[method-assign]
    try:
        return shell.run()
    finally:
        shell.prompt.prompt = prompt  # type: ignore[method-assign]


def test_enter_sends_a_one_line_request(repl) -> None:  # type: ignore[no-untyped-def]
    assert ask(repl, "/ls\r") == "/ls"


def test_alt_enter_starts_a_body(repl) -> None:  # type: ignore[no-untyped-def]
    assert ask(repl, "/write notes.md\x1b\rhello\x1b\rworld\r") == "/write notes.md\nhello\nworld"


def test_heredoc_keeps_the_input_open_until_its_terminator(repl) -> None:  # type: ignore[no-untyped-def]
    keys = "/write notes.md <<EOF\rline one\r\rEOFX\rEOF\r"
    assert ask(repl, keys) == "/write notes.md <<EOF\nline one\n\nEOFX\nEOF"


def test_ctrl_c_cancels_and_ctrl_d_on_an_empty_line_exits(repl) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(KeyboardInterrupt):
        ask(repl, "/write half\x03")
    with pytest.raises(EOFError):
        ask(repl, "\x04")


def test_ctrl_d_on_a_non_empty_line_deletes_instead_of_leaving(repl) -> None:  # type: ignore[no-untyped-def]
    assert ask(repl, "/lsx\x02\x04\r") == "/ls"  # Ctrl-B back one, Ctrl-D deletes the x


def test_the_loop_shows_each_request_and_reply_and_exits_on_ctrl_d(repl, ws: Path, history_file: Path) -> None:  # type: ignore[no-untyped-def]
    shell, pipe, buffer = repl
    (ws / "docs").mkdir()
    assert run_turns(shell, pipe, "/ls\r", "/nope\r", "/write a.md\x1b\r# A\r", "/open a.md\r") == 0
    out = buffer.getvalue()
    assert out.startswith("Listing ./\n") and "  docs/" in out  # the request is on screen already: no `re:` line
    assert "ERROR(COMMAND_UNSUPPORTED): Unknown command: /nope" in out
    assert "\n\nCreated: a.md (3 bytes, 1 line)\n" in out and "re:" not in out
    assert (ws / "a.md").read_text() == "# A"
    assert "Opened a.md" in out
    assert shell.state.document == "a.md"
    assert shell.state.undo_depth == 1
    saved = history_file.read_text()
    assert "+/ls" in saved and "+/write a.md\n+# A" in saved


def ask_after_history(repl_fixture: tuple[Repl, object, io.StringIO], keys: str, entries: int) -> str:
    """Send keys once the prompt's buffer has loaded the history (it loads on a thread, after the prompt shows)."""
    shell, pipe, _buffer = repl_fixture
    buffer = shell.prompt.default_buffer

    def send_when_loaded() -> None:
        deadline = time.monotonic() + 20
        # the prompt resets the buffer when it starts, then reloads history: wait for both, in that order
        while not shell.prompt.app.is_running and time.monotonic() < deadline:
            time.sleep(0.01)
        while len(buffer._working_lines) <= entries and time.monotonic() < deadline:
            time.sleep(0.01)
        pipe.send_text(keys)  # type: ignore[attr-defined]

    threading.Thread(target=send_when_loaded, daemon=True).start()
    return shell.prompt.prompt(shell.message)


def test_history_recalls_earlier_input(repl, history_file: Path) -> None:  # type: ignore[no-untyped-def]
    shell, pipe, _buffer = repl
    run_turns(shell, pipe, "/info\r", "/ls\r")
    assert ask_after_history(repl, "\x1b[A\x1b[A\r", 2) == "/info"  # Up, Up
    assert ask_after_history(repl, "\x12/i\r\r", 3) == "/info"  # Ctrl-R search, accept, send
    assert history_file.read_text().count("+/info") == 2  # a repeat of the last entry is not stored twice


def test_history_survives_a_new_session(repl, dispatcher: Dispatcher, history_file: Path) -> None:  # type: ignore[no-untyped-def]
    shell, pipe, _buffer = repl
    run_turns(shell, pipe, "/info\r")
    later = Repl(dispatcher)
    assert ask_after_history((later, pipe, _buffer), "\x1b[A\r", 1) == "/info"


def test_history_path_override_and_xdg_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ws: Path) -> None:
    monkeypatch.setenv("STRINGSH_HISTORY", str(tmp_path / "h"))
    assert history_path(tmp_path / "state") == tmp_path / "h"
    monkeypatch.delenv("STRINGSH_HISTORY")
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("STRINGSH_STATE_DIR", raising=False)
    # one file per workspace, beside its journal (no suggestion from another project)
    dispatcher = Dispatcher(ws)
    try:
        expected = tmp_path / "xdg" / "stringsh" / "workspaces" / state_key(ws.resolve()) / "history"
        assert history_path(workspace_state(dispatcher)) == expected
    finally:
        dispatcher.close()


def test_history_file_is_created_private(history_file: Path) -> None:
    history = open_history(None)
    assert isinstance(history, ThreadedHistory) and isinstance(history.history, FileHistory)
    assert history_file.exists() and (history_file.stat().st_mode & 0o077) == 0


def test_secrets_and_space_prefixed_requests_stay_out_of_the_file(repl, history_file: Path) -> None:  # type: ignore[no-untyped-def]
    shell, pipe, _buffer = repl
    run_turns(shell, pipe, " /set {token} = abc\r", "/set $API_KEY = sk-123\r", "[x] /SET  $K=v\r", "/set {a} = 1\r")
    saved = history_file.read_text()
    assert "sk-123" not in saved and "abc" not in saved and "$K" not in saved
    assert "+/set {a} = 1" in saved
    assert shell.prompt.history.get_strings()[-2] == "[x] /SET  $K=v"  # still recallable in this session


def test_unwritable_history_falls_back_to_memory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("STRINGSH_HISTORY", str(blocker / "history"))  # a folder that is a file
    assert isinstance(open_history(None), InMemoryHistory)


def test_bash_mode_changes_the_prompt(repl, dispatcher: Dispatcher) -> None:  # type: ignore[no-untyped-def]
    shell, _pipe, _buffer = repl
    assert shell.message() == [("class:prompt", "› ")]
    assert dispatcher.execute("/bash").ok
    assert shell.message() == [("class:prompt.bash", "bash› ")]
    assert ask(repl, "echo hi\r") == "echo hi"
    assert dispatcher.execute("//exit").ok
    assert shell.message() == [("class:prompt", "› ")]


def test_only_shell_lines_are_interrupted(repl, dispatcher: Dispatcher) -> None:  # type: ignore[no-untyped-def]
    shell, _pipe, _buffer = repl
    assert shell.goes_to_shell("!sleep 1") and shell.goes_to_shell("[a] !ls")
    assert not shell.goes_to_shell("/ls") and not shell.goes_to_shell("/exec ls")
    assert dispatcher.execute("/bash").ok
    assert shell.goes_to_shell("sleep 1") and not shell.goes_to_shell("//exit")


def test_dollar_assignments_in_a_body_stay_out_of_the_file(repl, history_file: Path) -> None:  # type: ignore[no-untyped-def]
    shell, pipe, _buffer = repl
    run_turns(shell, pipe, '/set <<EOF\r$API_TOKEN = "sk-heredoc"\rEOF\r', '/set\x1b\r$B_TOKEN = "sk-alt"\r', '/ls\r')
    saved = history_file.read_text()
    assert "sk-" not in saved and "TOKEN" not in saved
    assert "+/ls" in saved
