"""Ctrl-C is never lost while a shell command runs: pressed at random moments in the first second after Enter
(while the request makes the topic's shell, before bash has read the command line, or once the command runs), it
always interrupts, in one REPL session in a real pty read through pyte.

The delays are the test's input, drawn from a seeded RNG; the seed is in every failure message, and
`STRINGSH_TEST_SEED=<seed>` replays a run. Outcomes are waited for on the screen, never on time.
"""

from __future__ import annotations

import os
import random
import re
import time
from pathlib import Path

from tests.repl.harness import Terminal
from tests.repl.test_pty_repl import CTRL_C, CTRL_D, ENTER, answered, ready, running

ROUNDS = 20
INTERRUPTED = re.compile(r"^exit: (130|143) \| cwd: ", re.M)


def below(screen: str, request: str) -> str:
    """The screen under the request's own (last) prompt line: its notes and reply, then the next prompt."""
    return screen.rsplit(f"\n› {request}\n", 1)[1]


def test_ctrl_c_at_random_moments_in_the_first_second_always_interrupts(ws: Path, tmp_path: Path) -> None:
    seed = int(os.environ.get("STRINGSH_TEST_SEED") or random.SystemRandom().randrange(2**32))
    rng = random.Random(seed)
    term = Terminal([], ws, {"STRINGSH_HISTORY": str(tmp_path / "history"), "HOME": str(tmp_path)})
    try:
        term.wait_for("Ctrl-D quit")
        for round_ in range(ROUNDS):
            if round_ % 5 == 0 and round_:  # the next command starts a new shell: Ctrl-C while it starts
                term.send("/close" + ENTER)
                answered(term, "/close")
            # a program in its own process group, or a loop of builtins (bash itself stays in the foreground);
            # each request is unique on screen, so its own prompt line is found
            sleep = f"sleep 30.{os.getpid()}{round_:02d}"
            request = f"!{sleep}" if round_ % 2 == 0 else f"!while :; do :; done # round {round_}"
            delay = rng.uniform(0, 1)
            ready(term)
            term.send(request + ENTER)
            pressed_at = time.monotonic() + delay
            while time.monotonic() < pressed_at:  # the delay is the input; the screen keeps up meanwhile
                term.pump(max(0.0, min(0.05, pressed_at - time.monotonic())))
            term.send(CTRL_C)
            context = f"seed {seed} (STRINGSH_TEST_SEED), round {round_}, Ctrl-C {delay:.3f} s after Enter"
            try:
                reply = below(answered(term, request), request)
            except AssertionError as exc:
                raise AssertionError(f"{context}: the command never ended\n{exc}") from None
            assert "nothing to interrupt" not in reply, f"{context}:\n{reply}"
            assert reply.startswith("^C interrupting…\n") and INTERRUPTED.search(reply), f"{context}:\n{reply}"
            assert not running(sleep), context
        ready(term)
        term.send(CTRL_D)
        assert term.wait_exit() == 0
    finally:
        term.close()
