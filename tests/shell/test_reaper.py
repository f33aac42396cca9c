"""An unsandboxed topic shell's jobs end with stringsh, however stringsh ends (reaper.py): no pid namespace ends
them, and bash, hung up in the middle of a command, does not pass the hangup on to the jobs it started."""

from __future__ import annotations

import functools
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from stringsh.workspace.shell.reaper import name_own_session, serve, session_members
from tests.conftest import STRINGSH, descendants, wait_until
from tests.repl.test_pty_repl import running
from tests.shell.test_oneshot import running as alive

pytestmark = pytest.mark.timeout(120)  # a job left running is waited for until then


def reaper_of(parent: int) -> int | None:
    """The reaper process `parent` started, if it runs."""
    return next((pid for pid in descendants(parent) if b"reaper.py" in cmdline(pid)), None)


def cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def test_a_daemon_killed_mid_command_leaves_no_job_of_its_unsandboxed_shell_running(ws: Path) -> None:
    earlier, job, foreground = (f"sleep 600.{os.getpid()}{n}" for n in (1, 2, 3))  # command lines no other has
    daemon = subprocess.Popen([*STRINGSH, "--no-sandbox", "daemon"], cwd=ws, stdin=subprocess.PIPE,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert daemon.stdin is not None
    try:  # a job of an earlier command, and one of the command running when stringsh is killed
        daemon.stdin.write(f"!{earlier} &\n!{job} & {foreground}\n".encode())
        daemon.stdin.flush()
        wait_until(lambda: running(earlier) and running(job) and running(foreground))
    finally:
        daemon.kill()  # no clean-up of its own can run
        daemon.wait()
    wait_until(lambda: not running(earlier) and not running(job) and not running(foreground))


def test_a_daemon_killed_during_an_unsandboxed_exec_leaves_no_process_of_it_running(ws: Path) -> None:
    program = f"sleep 600.{os.getpid()}4"
    daemon = subprocess.Popen([*STRINGSH, "--no-sandbox", "daemon"], cwd=ws, stdin=subprocess.PIPE,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert daemon.stdin is not None
    try:
        daemon.stdin.write(f"/exec {program}\n".encode())
        daemon.stdin.flush()
        wait_until(lambda: running(program))
    finally:
        daemon.kill()
        daemon.wait()
    wait_until(lambda: not running(program))


def test_the_reaper_ends_with_a_stringsh_that_ends_normally_and_leaves_its_closed_shells_alone(ws: Path) -> None:
    daemon = subprocess.Popen([*STRINGSH, "--no-sandbox", "daemon"], cwd=ws, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert daemon.stdin is not None and daemon.stdout is not None
    daemon.stdin.write(b"!echo started\n")
    daemon.stdin.flush()
    reply = b""
    while not reply.endswith("</𝒞>\n".encode()):
        reply += daemon.stdout.readline()
    assert b"\nstarted\n" in reply
    reaper = reaper_of(daemon.pid)
    assert reaper is not None
    daemon.stdin.close()
    assert daemon.wait(timeout=60) == 0
    wait_until(lambda: not alive(reaper))


RESTARTED = """
import subprocess, sys
from stringsh.workspace.shell.reaper import REAPER
for program in sys.argv[1:]:
    REAPER.watch(subprocess.Popen(program.split(), start_new_session=True).pid)
    print("named", flush=True)
    sys.stdin.readline()
"""


def test_a_reaper_that_died_is_started_again_and_told_every_session_still_named() -> None:
    first, second = (f"sleep 600.{os.getpid()}{n}" for n in (5, 6))
    owner = subprocess.Popen([sys.executable, "-c", RESTARTED, first, second], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE)
    assert owner.stdin is not None and owner.stdout is not None
    try:
        assert owner.stdout.readline() == b"named\n"
        reaper = reaper_of(owner.pid)
        assert reaper is not None
        os.kill(reaper, signal.SIGKILL)
        wait_until(lambda: not alive(reaper))
        owner.stdin.write(b"next\n")
        owner.stdin.flush()
        assert owner.stdout.readline() == b"named\n"
        assert running(first) and running(second)
    finally:
        owner.kill()  # as stringsh killed: the new reaper ends both, the first named before it started
        owner.wait()
    wait_until(lambda: not running(first) and not running(second))


def test_serve_ends_the_sessions_still_named_when_its_input_ends() -> None:
    named, forgotten = (subprocess.Popen(["sleep", "600"], start_new_session=True) for _ in range(2))
    try:
        lines = [f"+{named.pid}\n".encode(), f"+{forgotten.pid}\n".encode(), b"not a line\n", b"+12x\n",
                 f"-{forgotten.pid}\n".encode()]
        assert serve(lines) == {named.pid}
        assert named.wait(timeout=10) == -9
        assert alive(forgotten.pid)
        assert session_members(forgotten.pid) == [forgotten.pid]
    finally:
        forgotten.kill()
        forgotten.wait()


def test_a_child_names_its_own_session_before_it_runs_and_outlives_a_reaper_that_has_gone() -> None:
    read, write = os.pipe()
    child = subprocess.Popen(["sh", "-c", "exit 7"], start_new_session=True,
                             preexec_fn=functools.partial(name_own_session, write))
    assert child.wait() == 7
    assert os.read(read, 100) == f"+{child.pid}\n".encode()
    os.close(read)  # no reader now: the write fails, and its SIGPIPE does not end the child
    child = subprocess.Popen(["sh", "-c", "exit 7"], start_new_session=True,
                             preexec_fn=functools.partial(name_own_session, write))
    assert child.wait() == 7
    os.close(write)
