"""A user's own shell breakage (`enable -n source`, `ulimit -n 4`, a DEBUG trap) no longer leaves
the topic unusable until `//close`: the shell is restarted with a note, as a dead shell is. Through the real
program's plain loop, locally and under bubblewrap."""

from __future__ import annotations

from pathlib import Path

import pytest

from stringsh.workspace.shell.runline import BROKEN, DEBUG_TRAP
from stringsh.workspace.shell.session import BROKEN_NOTES, NOT_RUN_NOTE
from tests.shell.piped import PipedPlain, policy_args


@pytest.fixture
def plain(ws: Path, tmp_path: Path, sandbox: str):
    session = PipedPlain(ws, policy_args(tmp_path, sandbox))
    yield session
    session.close()


def reply(header: str, status: int, cwd: Path, content: str) -> str:
    return f"re: {header}\nexit: {status} | cwd: {cwd.resolve()}\n---\n{content}\n"


def keep_state(plain: PipedPlain, ws: Path) -> None:
    (ws / "sub").mkdir()
    header = "!cd sub && export KEEP=kept"
    assert plain.ask(header) == reply(header, 0, ws / "sub", "(no output)")


def test_disabled_source_restarts_the_shell_and_runs_the_command(plain: PipedPlain, ws: Path) -> None:
    keep_state(plain, ws)
    assert plain.ask("!enable -n source") == reply("!enable -n source", 0, ws / "sub", "(no output)")
    # the command never ran in the broken shell: it runs once, in a new one
    assert plain.ask("!echo once >> log.txt; pwd; echo ${KEEP-unset}") == reply(
        "!echo once >> log.txt; pwd; echo ${KEEP-unset}", 0, ws, f"{NOT_RUN_NOTE}\n{ws.resolve()}\nunset"
    )
    assert (ws / "log.txt").read_text() == "once\n"
    assert plain.ask("!echo again") == reply("!echo again", 0, ws, "again")


@pytest.mark.parametrize("breakage", ["ulimit -n 4", "enable -n builtin"])
def test_a_protocol_builtin_that_fails_restarts_the_shell(plain: PipedPlain, ws: Path, breakage: str) -> None:
    ended, note = BROKEN_NOTES[BROKEN]
    keep_state(plain, ws)
    assert plain.ask(f"!{breakage}").endswith(f"\n{ended}\n")
    header = "!pwd; echo ${KEEP-unset}"
    assert plain.ask(header) == reply(header, 0, ws, f"{note}\n{ws.resolve()}\nunset")
    assert plain.ask("!echo again") == reply("!echo again", 0, ws, "again")


@pytest.mark.parametrize("trap", ["echo $BASH_COMMAND", "exec >/dev/null"])
def test_a_debug_trap_restarts_the_shell(plain: PipedPlain, ws: Path, trap: str) -> None:
    ended, note = BROKEN_NOTES[DEBUG_TRAP]
    keep_state(plain, ws)
    header = f"!trap '{trap}' DEBUG; echo set"
    answer = plain.ask(header)
    assert answer.startswith(f"re: {header}\nexit: 0 | cwd: {(ws / 'sub').resolve()}\n---\n")
    assert answer.endswith(f"\n{ended}\n")
    assert "__SSH_" not in answer
    assert plain.ask("!pwd") == reply("!pwd", 0, ws, f"{note}\n{ws.resolve()}")
    assert plain.ask("!echo again") == reply("!echo again", 0, ws, "again")


def test_a_healthy_shell_is_never_restarted(plain: PipedPlain, ws: Path) -> None:
    """Near misses: an ERR trap, a DEBUG trap removed in the same command, `$_` and `__ss_h` used by the user."""
    keep_state(plain, ws)
    assert plain.ask("!trap 'echo err' ERR; trap - ERR; trap ':' DEBUG; trap - DEBUG; echo $_") == reply(
        "!trap 'echo err' ERR; trap - ERR; trap ':' DEBUG; trap - DEBUG; echo $_", 0, ws / "sub", "DEBUG"
    )
    assert plain.ask("!__ss_h=x; echo ${KEEP}") == reply("!__ss_h=x; echo ${KEEP}", 0, ws / "sub", "kept")
