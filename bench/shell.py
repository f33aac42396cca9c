"""Shell speed, as ratios against references measured in the same run (both providers).

1. Round-trip of `true` through the persistent session vs spawning `bash -c true` (goal <= 2x).
2. `seq 1 1000000` through the session (pty, cleaning, cap, spool) vs `seq 1 1000000 >/dev/null` (goal <= 10x).
   Rows in brackets are context: a bare read loop over a pty is the kernel's floor for (2), most of the cost.

Usage: python bench/shell.py [--rounds N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import termios
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import record
from benchenv import isolate_user_state

from stringsh.workspace.shell import ShellSession, ShellSettings, make_provider

NO_GOAL = float("nan")


def median_seconds(action: Callable[[], object], rounds: int) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def spawn(argv: list[str]) -> None:
    subprocess.run(argv, check=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)


def raw_pty_seq() -> None:
    """The kernel's floor: `seq` into a pty (no output processing) read by a bare loop, nothing else."""
    master, slave = os.openpty()
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.OPOST
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    proc = subprocess.Popen(["seq", "1", "1000000"], stdout=slave, stderr=slave)
    os.close(slave)
    try:
        while os.read(master, 65536):
            pass
    except OSError:
        pass
    proc.wait()
    os.close(master)


def bench(sandbox: str, root: Path, rounds: int) -> list[tuple[str, float, float, float]]:
    wrap = make_provider(sandbox).wrap
    ref_true = median_seconds(lambda: spawn(["bash", "-c", "true"]), rounds * 4)
    ref_seq = median_seconds(lambda: spawn(["bash", "-c", "seq 1 1000000 >/dev/null"]), rounds)
    wrapped_true = median_seconds(lambda: spawn(wrap(["bash", "-c", "true"], root)), rounds * 2)
    shell = ShellSession(root, ShellSettings(sandbox=sandbox))
    try:
        shell.run("true")
        session_true = median_seconds(lambda: shell.run("true"), rounds * 4)
        session_seq = median_seconds(lambda: shell.run("seq 1 1000000"), rounds)
    finally:
        shell.close()
    floor = median_seconds(raw_pty_seq, rounds)
    return [
        ("true round-trip vs bash -c true", session_true, ref_true, 2.0),
        ("seq 1 1000000 vs into /dev/null", session_seq, ref_seq, 10.0),
        ("(seq: bare pty read loop vs into /dev/null)", floor, ref_seq, NO_GOAL),
        ("(seq: session vs bare pty read loop)", session_seq, floor, NO_GOAL),
        ("(spawn under provider vs bash -c true)", wrapped_true, ref_true, NO_GOAL),
    ]


def main() -> int:
    isolate_user_state()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    failed = False
    with tempfile.TemporaryDirectory(prefix="stringsh-bench-") as tmp:
        root = Path(tmp)
        print(f"{'provider':<11} {'measure':<46} {'ours':>10} {'reference':>10} {'ratio':>7}  goal")
        for sandbox in ("none", "bubblewrap"):
            for name, ours, ref, goal in bench(sandbox, root, args.rounds):
                ratio = ours / ref
                verdict = "" if goal != goal else ("ok" if ratio <= goal else "MISSED")
                failed |= verdict == "MISSED"
                goal_text = "" if goal != goal else f"<= {goal:g}x {verdict}"
                times = f"{ours * 1000:>8.2f}ms {ref * 1000:>8.2f}ms"
                print(f"{sandbox:<11} {name:<46} {times} {ratio:>6.2f}x  {goal_text}")
                if goal == goal:  # the goal rows; the bracketed ones are context
                    record.record("front ends", f"shell ({sandbox}): {name.split(' vs ')[0]}", ours,
                                  name.split(" vs ")[1], ref, goal)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
