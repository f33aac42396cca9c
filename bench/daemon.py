"""Benchmark: `stringsh daemon` round trips against a bare Python echo loop, and optionally against the daemon of
other checkouts, all in one run, one request to each in a shuffled turn so every process sees the same load.

    python bench/daemon.py [--requests 3000] [--against ../other-checkout ...]

Each request is `/set n = N` (a request that touches no file: what it costs is the request pipeline itself: parse,
request context, reply masking, its one audit record). Goal: the daemon's p50 <= 2x the echo loop's. `--against`
runs another checkout's daemon beside this one (its folder goes first on PYTHONPATH), so a change's cost is a ratio
measured in the same run, e.g. a `git worktree add ../base <commit>` of the version before it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import record
from benchenv import isolate_user_state

ECHO_LOOP = r"""
import sys
out = sys.stdout.buffer
for line in sys.stdin.buffer:
    out.write(b"<\xf0\x9d\x92\x9e=string:main>\nre: " + line + b"ok\n</\xf0\x9d\x92\x9e>\n")
    out.flush()
"""
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--against", type=Path, nargs="*", default=[], help="other checkouts' daemons to run beside")
    args = parser.parse_args()
    isolate_user_state()
    here = Path(__file__).resolve().parents[1]
    trees = [here, *(tree.resolve() for tree in args.against)]
    with tempfile.TemporaryDirectory() as ws:
        procs = [start([sys.executable, "-m", "stringsh", "daemon"], Path(ws), tree) for tree in trees]
        procs.append(start([sys.executable, "-c", ECHO_LOOP], Path(ws), None))
        samples = round_trips(procs, args.requests)
    echo = statistics.median(samples[-1])
    print(f"{args.requests} round trips each, `/set n = N`, one request to each process in turn")
    for name, bucket in zip([*map(str, trees), "echo loop"], samples, strict=True):
        p50, p90 = statistics.median(bucket), sorted(bucket)[int(0.9 * len(bucket))]
        print(f"{name:<40} p50 {p50 * 1e6:6.0f} us  p90 {p90 * 1e6:6.0f} us  p50 {p50 / echo:5.2f}x the echo loop")
        if name == str(here):
            record.record("daemon", "/set round trip p50 (bench/daemon.py)", p50, "echo loop", echo, 2)
    print("goal: this checkout's daemon p50 <= 2x the echo loop")
    return 0


if __name__ == "__main__":
    sys.exit(main())
