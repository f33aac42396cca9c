"""Benchmark: `stringsh daemon` round trips against a bare Python echo loop, and optionally against the daemon of
other checkouts, all in one run, one request to each in a shuffled turn so every process sees the same load.

    python bench/daemon.py [--requests 3000] [--rounds 3] [--against ../other-checkout ...] [--floor]

Each round starts the processes anew, and the figures are the rounds' medians with their range: on a 2-core VM the
core each process is woken on is drawn when it starts, and which of them pays for waking an idle core (tens of
microseconds, the bare echo loop included) moves from one start to the next.

Each request is `/set n = N` (a request that touches no file: what it costs is the request pipeline itself: parse,
request context, reply masking, its one audit record). Goal: the daemon's p50 <= 2x the echo loop's. `--against`
runs another checkout's daemon beside this one (its folder goes first on PYTHONPATH), so a change's cost is a ratio
measured in the same run, e.g. a `git worktree add ../base <commit>` of the version before it.

A control runs beside them: the echo loop made to work, before each reply, as long as this checkout's daemon loop
takes per request in this process with no pipe (its requests read from memory, its replies written to /dev/null).
It answers what the daemon would cost were its work all that it added: on a machine where a process that works a
few tens of microseconds per request is woken on the other core, and the echo loop is not, that shows here.

`--floor` measures that bound as a curve: the echo loop made to work 0, 5, 10, 20 and 40 microseconds and this
checkout's in-process time before each reply, each in a round of its own beside the bare echo loop; and the same
loops polling their input without blocking for up to 100 microseconds after each reply before they sleep in
`read()` (busy polling, so the next request finds them running): the least a reply of that much work can cost on
this machine, whatever the program around it. Each cell is three rounds: the core a process is woken on moves from
one round to the next, and with it which of the two loops pays for the wake (the bare echo loop's own p50 moves
between about 10 and 50 us here), so the range is printed beside the median.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import record
from benchenv import isolate_user_state

if TYPE_CHECKING:
    from stringsh.protocol.stream import StreamItem

ECHO_LOOP = r"""
import sys
out = sys.stdout.buffer
for line in sys.stdin.buffer:
    out.write(b"<\xf0\x9d\x92\x9e=string:main>\nre: " + line + b"ok\n</\xf0\x9d\x92\x9e>\n")
    out.flush()
"""
#: The echo loop, working argv[1] microseconds of CPU before each reply (the control).
WORKING_ECHO = r"""
import sys, time
work = float(sys.argv[1]) / 1e6
clock = time.perf_counter
out = sys.stdout.buffer
for line in sys.stdin.buffer:
    until = clock() + work
    while clock() < until:
        pass
    out.write(b"<\xf0\x9d\x92\x9e=string:main>\nre: " + line + b"ok\n</\xf0\x9d\x92\x9e>\n")
    out.flush()
"""
#: The working echo loop that, after each reply, polls its input without blocking for up to argv[2] microseconds
#: before it sleeps in read() (`--floor`).
POLLING_ECHO = r"""
import fcntl, os, sys, time
work, poll = float(sys.argv[1]) / 1e6, float(sys.argv[2]) / 1e6
clock = time.perf_counter
blocking = fcntl.fcntl(0, fcntl.F_GETFL)
pending = b""
while True:
    while b"\n" not in pending:
        chunk = None
        fcntl.fcntl(0, fcntl.F_SETFL, blocking | os.O_NONBLOCK)
        until = clock() + poll
        while chunk is None and clock() < until:
            try:
                chunk = os.read(0, 65536)
            except BlockingIOError:
                pass
        fcntl.fcntl(0, fcntl.F_SETFL, blocking)
        chunk = os.read(0, 65536) if chunk is None else chunk
        if not chunk:
            sys.exit(0)
        pending += chunk
    line, _, pending = pending.partition(b"\n")
    until = clock() + work
    while clock() < until:
        pass
    os.write(1, b"<\xf0\x9d\x92\x9e=string:main>\nre: " + line + b"\nok\n</\xf0\x9d\x92\x9e>\n")
"""
FLOOR_WORK_US = (0.0, 5.0, 10.0, 20.0, 40.0)
POLL_US = 100.0
#: Rounds per `--floor` cell: where each process is woken moves between rounds (see the docstring).
FLOOR_ROUNDS = 3
END = "</𝒞>\n".encode()
WARM_UP = 200


def start(argv: list[str], cwd: Path, tree: Path | None) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = str(tree) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)


def round_trips(procs: list[subprocess.Popen[bytes]], requests: int) -> list[list[float]]:
    """Each round asks every process once, in a shuffled order: the first after a pause is slower, and a fixed
    order would charge that to one of them."""
    import random
    import time

    samples: list[list[float]] = [[] for _ in procs]
    turns = list(zip(procs, samples, strict=True))
    shuffle = random.Random(0).shuffle
    for n in range(requests + WARM_UP):
        shuffle(turns)
        for proc, bucket in turns:
            assert proc.stdin and proc.stdout
            started = time.perf_counter()
            proc.stdin.write(f"[b{n}] /set n = {n}\n".encode())
            proc.stdin.flush()
            while proc.stdout.readline() != END:
                pass
            if n >= WARM_UP:
                bucket.append(time.perf_counter() - started)
    for proc in procs:
        assert proc.stdin
        proc.stdin.close()
        proc.wait(timeout=30)
    return samples


def in_process_seconds(tree: Path, ws: Path, requests: int) -> float:
    """The daemon loop's time per `/set` in this process, no pipe: requests read from memory, replies written to
    /dev/null (a first daemon on the same dispatcher runs the warm-up)."""
    sys.path.insert(0, str(tree))
    from stringsh.daemon import Daemon
    from stringsh.dispatcher import Dispatcher
    from stringsh.protocol.stream import read_requests

    def requests_of(count: int) -> Iterator[StreamItem]:
        lines = iter([f"[b{n}] /set n = {n}\n".encode() for n in range(count)])
        return read_requests(lambda _limit=-1: next(lines, b""), envelopes=True)

    dispatcher = Dispatcher(ws)
    with open(os.devnull, "wb") as out:
        Daemon(dispatcher, out=out).serve(requests_of(WARM_UP))
        daemon = Daemon(dispatcher, out=out)
        started = time.perf_counter()
        daemon.serve(requests_of(requests))
        took = time.perf_counter() - started
    dispatcher.close()
    return took / requests


def floor(cwd: Path, work_us: float, requests: int) -> None:
    """`--floor`: the round trip of a reply that works each of FLOOR_WORK_US and `work_us`, blocking and polling."""
    print(f"\nfloor: the echo loop made to work before each reply, each in a round of its own beside the bare echo "
          f"loop ({requests} round trips each)")
    print(f"{'work per request':<24}{'blocking in read()':>28}{f'polling {POLL_US:.0f} us first':>34}")
    for work in sorted({*FLOOR_WORK_US, round(work_us, 1)}):
        shown = []
        for loop, extra in ((WORKING_ECHO, []), (POLLING_ECHO, [f"{POLL_US:g}"])):
            rounds = [[statistics.median(bucket) for bucket in round_trips(
                [start([sys.executable, "-c", loop, f"{work:g}", *extra], cwd, None),
                 start([sys.executable, "-c", ECHO_LOOP], cwd, None)], requests)] for _ in range(FLOOR_ROUNDS)]
            ratios = sorted(working / alone for working, alone in rounds)
            working = statistics.median(working for working, _ in rounds)
            spread = f"{ratios[0]:.2f}-{ratios[-1]:.2f}x"
            shown.append(f"{working * 1e6:4.0f} us {statistics.median(ratios):5.2f}x ({spread})")
        label = f"{work:g} us" + (" (this daemon)" if work == round(work_us, 1) else "")
        print(f"{label:<24}{shown[0]:>28}{shown[1]:>34}")
    print(f"each cell, of {FLOOR_ROUNDS} rounds: the working loop's p50 (median), its ratio to the bare echo loop's "
          f"p50 in the same round (median, and the range)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--against", type=Path, nargs="*", default=[], help="other checkouts' daemons to run beside")
    parser.add_argument("--rounds", type=int, default=3, help="rounds, each with the processes started anew")
    parser.add_argument("--floor", action="store_true", help="also the round trip of a reply that only works, as a "
                        "curve of its work per request (see above)")
    args = parser.parse_args()
    isolate_user_state()
    here = Path(__file__).resolve().parents[1]
    trees = [here, *(tree.resolve() for tree in args.against)]
    with tempfile.TemporaryDirectory() as ws, tempfile.TemporaryDirectory() as own:
        rounds = []
        for _ in range(args.rounds):  # processes started anew each round: where each is woken is drawn anew
            procs = [start([sys.executable, "-m", "stringsh", "daemon"], Path(ws), tree) for tree in trees]
            procs.append(start([sys.executable, "-c", ECHO_LOOP], Path(ws), None))
            rounds.append([statistics.median(bucket) for bucket in round_trips(procs, args.requests)])
        # the control in a round of its own: a third process in the round above moves where the others run
        work = in_process_seconds(here, Path(own), args.requests)
        control = round_trips([start([sys.executable, "-c", WORKING_ECHO, f"{work * 1e6:.1f}"], Path(ws), None),
                               start([sys.executable, "-c", ECHO_LOOP], Path(ws), None)], args.requests)
    echo = statistics.median(p50s[-1] for p50s in rounds)
    print(f"{args.requests} round trips each, `/set n = N`, one request to each process in turn; {args.rounds} rounds, "
          f"the processes started anew for each: p50 (median of the rounds' p50s), and the ratio to the echo loop's "
          f"p50 in the same round (median, and the range)")
    for column, name in enumerate([*map(str, trees), "echo loop"]):
        p50 = statistics.median(p50s[column] for p50s in rounds)
        ratios = sorted(p50s[column] / p50s[-1] for p50s in rounds)
        ratio = statistics.median(ratios)
        print(f"{name:<40} p50 {p50 * 1e6:6.0f} us  {ratio:5.2f}x the echo loop ({ratios[0]:.2f}-{ratios[-1]:.2f}x)")
        if name == str(here):
            record.record("daemon", "/set round trip p50 (bench/daemon.py)", p50, "echo loop", echo, 2, ratio=ratio)
    print("goal: this checkout's daemon p50 <= 2x the echo loop")
    working, alone = (statistics.median(bucket) for bucket in control)
    print(f"control, a round of its own: this checkout's daemon loop takes {work * 1e6:.0f} us per request in process "
          f"(no pipe); the echo loop working that long before each reply: p50 {working * 1e6:.0f} us, "
          f"{working / alone:.2f}x the echo loop ({alone * 1e6:.0f} us in that round)")
    if args.floor:
        with tempfile.TemporaryDirectory() as ws:
            floor(Path(ws), work * 1e6, args.requests)
    return 0


if __name__ == "__main__":
    sys.exit(main())
