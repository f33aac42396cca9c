"""Start-up and daemon round-trip, as ratios to plain Python measured in the same run.

    python bench/startup.py [--runs 40] [--requests 1000] [--rounds 3] [--no-site]

Goals: `stringsh -c '/ls'` ≤ 3× `python -c pass`, in a fresh workspace and in a used one (its journal holds a
finished change set: the start must not open it); daemon round-trip p50 and p99 ≤ 3× a bare Python echo loop over
the same pipes. `--no-site` runs every interpreter with `-S` (stringsh found through PYTHONPATH), to measure without
what the machine's site-packages `.pth` files load into every start, `python -c pass` included.

Measured like a real install: the package's bytecode is compiled first (pip does that on install), because an
environment with PYTHONDONTWRITEBYTECODE=1 would otherwise recompile every stringsh module on every run.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import record
from benchenv import compile_package, isolate_user_state

ECHO_LOOP = r"""
import sys
out = sys.stdout.buffer
for line in sys.stdin.buffer:
    out.write(b"<\xf0\x9d\x92\x9e=string:main>\nre: " + line + b"ok\n</\xf0\x9d\x92\x9e>\n")
    out.flush()
"""

#: Run `-c /ls` as `python -m stringsh` does, then report what it imported.
MODULE_PROBE = """
import runpy, sys
before = set(sys.modules)
sys.argv = ["stringsh", "-c", "/ls"]
try:
    runpy.run_module("stringsh", run_name="__main__", alter_sys=True)
except SystemExit:
    pass
names = set(sys.modules)
print(len(names), len(names - before), sum(1 for n in names if n == "stringsh" or n.startswith("stringsh.")),
      file=sys.stderr)
print("stdlib:", *sorted(n for n in names - before if not n.startswith(("stringsh", "_")) and "." not in n),
      file=sys.stderr)
"""


def time_commands(commands: list[tuple[list[str], Path]], runs: int) -> list[tuple[float, float]]:
    """Median (wall, CPU) time of each (command, folder); the commands take turns, so all see the same machine
    load. CPU time (the child's user + system) is the steadier of the two on a busy machine."""
    samples: list[list[tuple[float, float]]] = [[] for _ in commands]
    for _ in range(runs):
        for (argv, cwd), bucket in zip(commands, samples, strict=True):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(argv, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            bucket.append((wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime))
    return [(statistics.median(w for w, _ in bucket), statistics.median(c for _, c in bucket)) for bucket in samples]


def module_counts(python: list[str], cwd: Path) -> tuple[int, int, int, list[str]]:
    """(modules loaded in all, modules `-c /ls` added to a bare interpreter's, stringsh modules, and the
    standard-library packages it added)."""
    proc = subprocess.run([*python, "-c", MODULE_PROBE], cwd=cwd, check=True, capture_output=True)
    counts, _, stdlib = proc.stderr.decode().rpartition("stdlib:")
    total, added, ours = (int(n) for n in counts.split()[-3:])
    return total, added, ours, stdlib.split()


def round_trips(programs: list[list[str]], cwd: Path, requests: int) -> list[list[float]]:
    """Per-request latency of each program, requests alternating between them so both see the same noise."""
    procs = [subprocess.Popen(argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE) for argv in programs]
    samples: list[list[float]] = [[] for _ in procs]
    try:
        for n in range(requests + 20):
            for proc, bucket in zip(procs, samples, strict=True):
                assert proc.stdin and proc.stdout
                start = time.perf_counter()
                proc.stdin.write(f"[b{n}] /set n = {n}\n".encode())
                proc.stdin.flush()
                while proc.stdout.readline() != "</𝒞>\n".encode():
                    pass
                if n >= 20:  # warm-up
                    bucket.append(time.perf_counter() - start)
    finally:
        for proc in procs:
            assert proc.stdin
            proc.stdin.close()
            proc.wait(timeout=30)
    return samples


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def workspaces(tmp: Path, stringsh: list[str]) -> tuple[Path, Path]:
    """A fresh workspace, and a used one: a change made and finished, so its journal exists."""
    fresh, used = tmp / "fresh", tmp / "used"
    for ws in (fresh, used):
        (ws / "docs").mkdir(parents=True)
        (ws / "README.md").write_text("# hi\n")
    subprocess.run([*stringsh, "-c", "/write notes.md\n# notes\n"], cwd=used, check=True, stdout=subprocess.DEVNULL)
    return fresh, used


def main() -> int:
    isolate_user_state()
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3, help="daemon round-trip rounds, the processes started anew")
    parser.add_argument("--no-site", action="store_true", help="run every interpreter with -S (see the docstring)")
    args = parser.parse_args()
    package = compile_package()
    print(f"bytecode compiled first (compileall {package}), as an install does")
    python = [sys.executable]
    script = Path(sys.executable).with_name("stringsh")  # the console script an install puts beside python
    command = [str(script)] if script.exists() else [sys.executable, "-m", "stringsh"]
    if args.no_site:
        python = [sys.executable, "-S"]
        command = [*python, "-m", "stringsh"]
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(package.parent), os.environ.get("PYTHONPATH")]))
        print("every interpreter runs with -S: no site-packages .pth files")
    with tempfile.TemporaryDirectory() as tmp:
        fresh, used = workspaces(Path(tmp), command)
        ws = fresh
        total, added, ours, stdlib = module_counts(python, fresh)
        floor = [*python, "-c", "import " + ", ".join(stdlib)]  # what -c /ls needs of the stdlib, alone
        used_total, _, used_ours, _ = module_counts(python, used)
        bare, stdlib_time, fresh_time, used_time = time_commands(
            [([*python, "-c", "pass"], fresh), (floor, fresh), ([*command, "-c", "/ls"], fresh),
             ([*command, "-c", "/ls"], used)], args.runs
        )
        for name, took in (("fresh workspace", fresh_time), ("used workspace (a journal)", used_time)):
            print(f"start-up, {name}: python -c pass {bare[0] * 1000:.1f} ms, stringsh -c '/ls' "
                  f"{took[0] * 1000:.1f} ms, ratio {took[0] / bare[0]:.2f}x (goal <= 3x); CPU time "
                  f"{bare[1] * 1000:.1f} vs {took[1] * 1000:.1f} ms, {took[1] / bare[1]:.2f}x")
            record.record("start-up", f"-c /ls, {name.split(' (')[0]}", took[0], "python -c pass", bare[0], 3)
        print(f"  of which the standard library it imports: {stdlib_time[0] * 1000:.1f} ms alone "
              f"({stdlib_time[0] / bare[0]:.2f}x pass; CPU {stdlib_time[1] / bare[1]:.2f}x): {' '.join(stdlib)}")
        print(f"modules after -c '/ls': {total} in all, {added} beyond a bare interpreter's, {ours} of stringsh "
              f"(used workspace: {used_total} in all, {used_ours} of stringsh)")
        # rounds with the processes started anew: which one the kernel wakes on the client's core is drawn at start
        # (bench/daemon.py --floor); each figure is the rounds' median, its range beside it
        rounds = [round_trips([[sys.executable, "-c", ECHO_LOOP], [sys.executable, "-m", "stringsh", "daemon"]], ws,
                              args.requests) for _ in range(args.rounds)]
        for name, q in (("p50", 0.50), ("p99", 0.99)):
            e = statistics.median(percentile(echo, q) for echo, _ in rounds)
            d = statistics.median(percentile(daemon, q) for _, daemon in rounds)
            ratios = sorted(percentile(daemon, q) / percentile(echo, q) for echo, daemon in rounds)
            ratio = statistics.median(ratios)
            print(f"daemon round-trip {name}: echo loop {e * 1e6:.0f} us, stringsh daemon {d * 1e6:.0f} us, "
                  f"ratio {ratio:.2f}x ({ratios[0]:.2f}-{ratios[-1]:.2f}x over {args.rounds} rounds; goal <= 3x)")
            record.record("daemon", f"round trip {name}", d, "echo loop", e, 3, ratio=ratio)
    return 0


if __name__ == "__main__":
    sys.exit(main())
