"""CLI actions through a real bash: hostile values arrive as plain data."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stringsh.actions.cli import build_command, run_bash, shell_quote

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
    run = run_bash(command, tmp_path)
    assert run.exit == 0
    assert run.output == value.rstrip()
    assert (tmp_path / "victim").read_text() == "keep me"
    assert not (tmp_path / "pwned").exists()


def test_args_and_index_and_session_variables(tmp_path: Path) -> None:
    command = build_command("printf '[%s]' {...args} {who}", {"a": "x y", "b": "$(id)"}, {"who": "it's me"})
    assert run_bash(command, tmp_path).output == "[--a][x y][--b][$(id)][it's me]"
    assert build_command("echo {pair[1]} {pair[5]}", {"pair": "a,b"}, {}) == "echo b ''"
    assert build_command("echo {unknown}", {}, {}) == "echo {unknown}"


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


def test_wrapped_command_still_runs_in_its_folder(tmp_path: Path) -> None:
    folder = tmp_path / "my dir"
    folder.mkdir()
    seen: list[list[str]] = []

    def wrap(argv: list[str]) -> list[str]:
        seen.append(argv)
        return ["env", "SANDBOXED=yes", *argv]

    run = run_bash("echo $SANDBOXED; pwd", tmp_path, wrap=wrap)
    assert run.output == f"yes\n{tmp_path}"
    run = run_bash("pwd", folder, wrap=wrap)
    assert run.output == str(folder) and seen[-1][-1] == f"cd '{folder}' && pwd"


def test_a_safe_word_with_a_final_newline_is_quoted() -> None:
    """`^…$` matched `0\n` (Python's `$` allows a final newline), which split the command in two."""
    assert build_command("printf '%s' {v} | od -An -tx1", {"v": "0\n"}, {}) == "printf '%s' '0\n' | od -An -tx1"
    run = run_bash(build_command("printf '%s' {v} | od -An -tx1", {"v": "0\n"}, {}), Path("/"))
    assert (run.exit, run.output.split()) == (0, ["30", "0a"])


@settings(max_examples=60, deadline=None)
@given(st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40))
def test_any_value_reaches_the_program_unchanged(value: str) -> None:
    """Whatever a caller passes, bash hands the program exactly that string (NUL cannot be in argv)."""
    command = build_command("printf '%s' {v} | od -An -tx1", {"v": value}, {})
    run = run_bash(command, Path("/"), env={"LC_ALL": "C.UTF-8"})
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
