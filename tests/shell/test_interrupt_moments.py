"""`ShellSession.interrupt` at every moment of a command (interrupts.py): while its shell starts, before bash has
read its line, as bash starts a program, while it runs. Real bash in a real pty, locally and under bubblewrap.

The delays are the test's input, drawn from a seeded RNG named in every failure (`STRINGSH_TEST_SEED` replays a
run); outcomes are waited for on the command's thread, never on time.
"""

from __future__ import annotations

import os
import random
import threading
from pathlib import Path

from stringsh.workspace.shell import ShellSession
from stringsh.workspace.shell.result import ShellResult
from tests.repl.test_pty_repl import running

WAIT = 20.0


def start(shell: ShellSession, command: str) -> tuple[threading.Thread, list[ShellResult]]:
    results: list[ShellResult] = []
    worker = threading.Thread(target=lambda: results.append(shell.run(command)), daemon=True)
    worker.start()
    return worker, results


def press(shell: ShellSession, worker: threading.Thread) -> None:
    """Ctrl-C as the REPL passes it on: tried until the shell takes it (it has no command before `run` starts)."""
    while not shell.interrupt():
        assert worker.is_alive(), "the command ended before it could be interrupted"


def test_a_ctrl_c_while_the_shell_starts_stops_the_command_before_it_runs(shell: ShellSession, ws: Path) -> None:
    worker, results = start(shell, "touch ran")  # the first command starts the shell
    press(shell, worker)
    worker.join(WAIT)
    assert not worker.is_alive() and (results[0].exit_code, results[0].output) == (130, "")
    assert not (ws / "ran").exists()  # as a terminal's Ctrl-C discards a line its shell has not read
    assert shell.run("echo next").output == "next"  # the shell is fine, and this one runs


def test_a_ctrl_c_at_random_moments_always_stops_the_command(shell: ShellSession) -> None:
    seed = int(os.environ.get("STRINGSH_TEST_SEED") or random.SystemRandom().randrange(2**32))
    rng = random.Random(seed)
    for round_ in range(12):
        if round_ % 4 == 0:
            shell.close()  # the next command starts a new shell
        sleep = f"sleep 30.{os.getpid()}{round_:02d}"
        command = sleep if round_ % 2 == 0 else "while :; do :; done"
        delay = rng.uniform(0, 0.3)
        worker, results = start(shell, command)
        worker.join(delay)  # the delay is the input (the command runs 30 s or for ever)
        assert worker.is_alive()  # still running when Ctrl-C comes
        press(shell, worker)
        worker.join(WAIT)
        context = f"seed {seed} (STRINGSH_TEST_SEED), round {round_}, {command!r}, Ctrl-C after {delay:.3f} s"
        assert not worker.is_alive(), f"{context}: the command never ended"
        assert results[0].exit_code in (130, 143) and not results[0].timed_out, f"{context}: {results[0]}"
        assert not running(sleep), context
    assert shell.run("echo still here").output == "still here"
