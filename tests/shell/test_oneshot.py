"""`run_once` (/exec): stateless bash -c with the same cleaning, cap and timeout, for both providers."""

from __future__ import annotations

from pathlib import Path

import pytest

from stringsh.errors import StringError
from stringsh.workspace.shell import ShellSettings, run_once
from tests.conftest import spool_named


def test_status_output_and_cwd(ws: Path, settings: ShellSettings) -> None:
    result = run_once("echo out; echo err >&2; exit 4", ws, settings)
    assert (result.exit_code, result.cwd, result.output) == (4, str(ws), "out\nerr")
    assert result.message == f"exit: 4 | cwd: {ws}"


def test_nothing_persists(ws: Path, settings: ShellSettings) -> None:
    run_once("cd /; export GONE=1", ws, settings)
    assert run_once('pwd; echo "${GONE-unset}"', ws, settings).output == f"{ws}\nunset"


def test_variables_and_fixed_environment(ws: Path, settings: ShellSettings) -> None:
    variables = {"who": "me", "_hidden": "h"}
    result = run_once('echo "$who ${_hidden-unset} $PAGER $GIT_EDITOR"', ws, settings, variables=variables)
    assert result.output == "me unset cat :"


def test_stdin_is_dev_null_and_syntax_errors_return(ws: Path, settings: ShellSettings) -> None:
    assert run_once("read x; echo $?", ws, settings).output == "1"
    broken = run_once("echo 'open", ws, settings)
    assert broken.exit_code == 2
    assert broken.output == "/bin/bash: -c: line 1: unexpected EOF while looking for matching `''"


def test_background_children_are_killed_when_bash_returns(ws: Path, settings: ShellSettings) -> None:
    result = run_once("sleep 60 & echo $!", ws, settings)
    assert result.exit_code == 0
    if settings.sandbox == "none":
        assert not running(int(result.output))


def running(pid: int) -> bool:
    """Alive and not a zombie waiting for its reaper."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except FileNotFoundError:
        return False


def test_timeout_sigterm_then_sigkill(ws: Path, settings: ShellSettings) -> None:
    result = run_once("echo part; trap '' TERM; sleep 30", ws, settings, timeout=1)
    assert result.timed_out
    assert result.message == f"exit: 124 | cwd: {ws}"
    assert result.content == "part\n[timed out after 1 s; the command was stopped]"


def test_cap_and_spool(ws: Path, settings: ShellSettings) -> None:
    small = ShellSettings(sandbox=settings.sandbox, output_cap=1000)
    result = run_once("seq 1 100000", ws, small)
    lines = result.output.splitlines()
    assert lines[0] == "1"
    assert lines[-1] == "100000"
    notice = next(line for line in lines if line.startswith("[... "))
    spool = spool_named(notice)
    assert spool.read_text() == "".join(f"{i}\n" for i in range(1, 100001))


def test_nul_byte_refused(ws: Path, settings: ShellSettings) -> None:
    with pytest.raises(StringError) as caught:
        run_once("echo \x00", ws, settings)
    assert caught.value.code == "INVALID_PAYLOAD"


def test_closed_stdout_still_obeys_the_timeout(ws: Path, settings: ShellSettings) -> None:
    result = run_once("echo bye; exec >&- 2>&-; sleep 30", ws, settings, timeout=1)
    assert result.timed_out
    assert result.content == "bye\n[timed out after 1 s; the command was stopped]"


def test_a_background_writer_left_behind_does_not_hold_the_reply(ws: Path, settings: ShellSettings) -> None:
    # bash returns at once; its job keeps printing (never quiet for long) and would print "finished" after
    # about 30 s. The reply must not wait for it: the job is killed like any leftover.
    job = "(for i in $(seq 3000); do echo tick; sleep 0.01; done; echo finished) & echo started"
    result = run_once(job, ws, settings)
    assert result.exit_code == 0
    assert result.output.startswith("started")
    assert "finished" not in result.output


def test_state_and_spool_folders_are_private(ws: Path, settings: ShellSettings) -> None:
    # Spool files hold whole command outputs (`env`, tokens); the engine makes .stringsh/ 0700, so does the shell.
    small = ShellSettings(sandbox=settings.sandbox, output_cap=100)
    run_once("seq 1 1000", ws, small)
    assert (ws / ".stringsh").stat().st_mode & 0o777 == 0o700
    assert (ws / ".stringsh" / "spool").stat().st_mode & 0o777 == 0o700
