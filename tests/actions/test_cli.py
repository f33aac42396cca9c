"""CLI actions through a real bash: hostile values arrive as plain data."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from stringsh.actions.cli import build_command, shell_quote
from stringsh.errors import StringError
from tests.actions.running import run_bash
from tests.conftest import sandbox_note

HOSTILE = [
    "; rm -rf victim",
    "$(touch pwned)",
    "`touch pwned`",
    'it\'s "quoted"',
    "line one\nline two; touch pwned",
    "' ; touch pwned ; '",
    "{other}",
    "$HOME && touch pwned",
    "",
    "-rf",
]


def test_shell_quote_forms() -> None:
    assert shell_quote("") == "''"
    assert shell_quote("plain-value_1.2/x=y@z:w+v,u") == "plain-value_1.2/x=y@z:w+v,u"
    assert shell_quote("a b") == "'a b'"
    assert shell_quote("it's") == "'it'\\''s'"


@pytest.mark.parametrize("value", HOSTILE)
def test_hostile_value_is_passed_verbatim(tmp_path: Path, value: str) -> None:
    (tmp_path / "victim").write_text("keep me")
    command = build_command("printf '%s' {msg}", {"msg": value}, {"other": "SHOULD NOT APPEAR"})
    run = run_bash(command.script, tmp_path, args=command.args)
    assert run.exit == 0
    assert run.output == value.rstrip()
    assert (tmp_path / "victim").read_text() == "keep me"
    assert not (tmp_path / "pwned").exists()


def test_args_and_index_and_session_variables(tmp_path: Path) -> None:
    command = build_command("printf '[%s]' {...args} {who}", {"a": "x y", "b": "$(id)"}, {"who": "it's me"})
    assert run_bash(command.script, tmp_path, args=command.args).output == "[--a][x y][--b][$(id)][it's me]"
    assert command.shown == "printf '[%s]' --a 'x y' --b '$(id)' 'it'\\''s me'"
    pair = build_command("echo {pair[1]} {pair[5]}", {"pair": "a,b"}, {})
    assert (pair.script, pair.args, pair.shown) == ('echo "${1}" "${2}"', ["b", ""], "echo b ''")
    unknown = build_command("echo {unknown}", {}, {})
    assert (unknown.script, unknown.args) == ("echo {unknown}", [])


def test_a_flag_name_is_data_too(tmp_path: Path) -> None:
    """`{...args}` passes each `--key` as a parameter too: a flag named `$(touch pwned)` is a word, not code."""
    command = build_command("printf '[%s]' {...args}", {"$(touch pwned)": "v"}, {})
    assert run_bash(command.script, tmp_path, args=command.args).output == "[--$(touch pwned)][v]"
    assert not (tmp_path / "pwned").exists()


def test_a_nul_in_a_value_is_refused() -> None:
    with pytest.raises(StringError) as caught:
        build_command("printf '%s' {v}", {"v": "a\x00b"}, {}, "say")
    assert (caught.value.code, caught.value.text) == (
        "INVALID_PAYLOAD",
        "/act.say: the value of {v} holds a NUL character, which no command argument can carry; nothing ran.\n"
        "Give text without NUL characters.",
    )


def test_exit_code_cwd_and_merged_output(tmp_path: Path) -> None:
    run = run_bash("echo out; echo err >&2; exit 3", tmp_path)
    assert (run.exit, run.cwd) == (3, str(tmp_path))
    assert run.message == f"exit: 3 | cwd: {tmp_path}"
    assert run.output == "out\nerr"


def test_timeout_kills_the_group(tmp_path: Path) -> None:
    run = run_bash("sleep 30 & sleep 30; echo never", tmp_path, timeout=0.5)
    assert run.timed_out and "never" not in run.output
    assert run.output.endswith("[timed out after 0.5s; process group killed]")


def test_output_cap_keeps_head_and_tail(tmp_path: Path) -> None:
    run = run_bash("seq 1 20000", tmp_path, cap=1000)
    assert run.output.startswith("1\n2\n") and run.output.endswith("19999\n20000")
    assert "characters cut" in run.output


def test_the_command_runs_in_its_folder_with_its_values_after_dollar_zero(tmp_path: Path) -> None:
    folder = tmp_path / "my dir"
    folder.mkdir()
    assert run_bash("pwd", folder, root=tmp_path).output == str(folder)
    run = run_bash('printf "[%s]" "$0" "$@"', folder, root=tmp_path, args=["a b", "$(id)"])
    assert run.output == "[bash][a b][$(id)]"


def test_a_safe_word_with_a_final_newline_is_quoted(tmp_path: Path) -> None:
    """`^…$` matched `0\n` (Python's `$` allows a final newline), which split the command in two."""
    command = build_command("printf '%s' {v} | od -An -tx1", {"v": "0\n"}, {})
    assert command.shown == "printf '%s' '0\n' | od -An -tx1"
    run = run_bash(command.script, tmp_path, args=command.args)
    assert (run.exit, run.output.split()) == (0, ["30", "0a"])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40))
def test_any_value_reaches_the_program_unchanged(tmp_path: Path, value: str) -> None:
    """Whatever a caller passes, bash hands the program exactly that string (NUL cannot be in argv)."""
    command = build_command("printf '%s' {v} | od -An -tx1", {"v": value}, {})
    try:
        run = run_bash(command.script, tmp_path, env={"LC_ALL": "C.UTF-8"}, args=command.args)
    except StringError as refused:  # unsandboxed (no bwrap here), a value naming a secret path is refused
        assert sandbox_note() and refused.code == "SECRET_DENIED", refused.text
        return
    assert run.exit == 0
    assert run.output.split() == value.encode("utf-8").hex(" ").split()


def test_a_job_left_behind_does_not_hold_the_reply(tmp_path: Path) -> None:
    import os
    import signal

    run = run_bash("echo start; setsid sleep 60 & echo $!; echo done", tmp_path, timeout=30)
    try:
        assert (run.exit, run.timed_out) == (0, False)
        lines = run.output.splitlines()
        assert (lines[0], lines[-1], len(lines)) == ("start", "done", 3)
    finally:
        os.kill(int(run.output.splitlines()[1]), signal.SIGKILL)
