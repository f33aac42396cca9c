"""A sandboxed topic shell ends with stringsh, however stringsh ends (lifeline.py and bwrap's --die-with-parent), and
not before: the thread that started it may end long before the process does."""

from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

import pytest

from stringsh.workspace.shell import ShellSession, ShellSettings
from tests.conftest import STRINGSH, wait_until
from tests.repl.test_pty_repl import running
from tests.shell.conftest import FAST

pytestmark = pytest.mark.timeout(120)  # a job left running is waited for until then


@pytest.mark.needs("bwrap")
def test_a_daemon_killed_mid_command_leaves_no_job_of_its_sandbox_running(ws: Path) -> None:
    (ws / "stringsh.toml").write_text("[shell]\nsandbox = true\n")  # a workspace may turn the sandbox on
    job, foreground = f"sleep 600.{os.getpid()}1", f"sleep 600.{os.getpid()}2"  # command lines no other process has
    daemon = subprocess.Popen([*STRINGSH, "daemon"], cwd=ws, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    assert daemon.stdin is not None
    try:
        daemon.stdin.write(f"!{job} &\n!{foreground}\n".encode())
        daemon.stdin.flush()
        wait_until(lambda: running(job) and running(foreground))
    finally:
        daemon.kill()  # no clean-up of its own can run
        daemon.wait()
    wait_until(lambda: not running(job) and not running(foreground))


@pytest.mark.needs("bwrap")
def test_a_sandboxed_shell_outlives_the_thread_that_started_it(ws: Path) -> None:
    (ws / "sub").mkdir()
    shell = ShellSession(ws, ShellSettings(sandbox="bubblewrap", **FAST))
    try:
        first = threading.Thread(target=shell.run, args=("cd sub",))  # a request thread, which then ends
        first.start()
        first.join()
        assert shell.cwd == str(ws / "sub")
        result = shell.run("pwd")  # the same shell: its cwd kept, no restart note
        assert (result.notes, result.output) == ([], str(ws / "sub"))
    finally:
        shell.close()
