"""Benchmark: /grep (a literal and a regex, with the rg engine and the Python engine), /glob '**/*.py', and /grep in a
running daemon, each as a ratio to ripgrep alone measured in the same run, with the reference time beside it.

Two generated trees (deterministic: the same files and bytes on every run): 51,534 files for the grep and glob rows,
5,000 for the daemon row. Each round runs the reference and stringsh one after the other, so a busy machine slows
both alike; each figure is the median of `--rounds` warm runs. The references, as a whole process each:
`rg --no-config --hidden --no-ignore [-F] PATTERN` (every file, as stringsh's walk searches them; the trees have no
ignore files), `rg --no-config --hidden --no-ignore --files -g '*.py'`, and for the daemon `rg -n -F PATTERN`.

    python bench/search.py [--rounds 7] [--files 51534] [--daemon-files 5000] [--keep DIR] [--tree DIR]
                           [--only grep,glob,daemon]

`--keep DIR` builds the trees in DIR once and reuses them on the next run (building 51k files takes a while);
`--tree DIR` takes DIR as the big tree, built before by `--keep` (only read). `--only` runs only those rows (glob:
the `/glob` rows, in name order and `--sort mtime`).
Goals: grep rg engine <= 1.3x rg; Python engine <= 3x; glob <= 1.5x; daemon grep <= 1.3x `rg -n`.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import record
from benchenv import isolate_user_state

from stringsh.dispatcher import Dispatcher
from stringsh.workspace.ops.rgsearch import find_rg

LITERAL = "hashlib.sha256("
REGEX = r"class \w+Error\(\w*Exception\)"
MAX = 1_000_000
END = "</𝒞>\n".encode()


def build_tree(root: Path, want: int) -> None:
    """`want` modules of ~1.9 KB in folders of 50 (10 per package), one in 97 holding both queries; built once."""
    done = root / ".built"
    if done.exists() and done.read_text() == str(want):
        return
    for index in range(want):
        folder = root / f"pkg{index // 500:03d}" / f"mod{index // 50 % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        body = "".join(f"def helper_{index}_{n}(value):\n    return value * {n}\n\n" for n in range(40))
        extra = "    hashlib.sha256(value)\nclass BadError(Exception):\n    pass\n" if index % 97 == 0 else ""
        (folder / f"m{index}.py").write_text(f"# module {index}\n{body}{extra}")
    done.write_text(str(want))
    os.utime(done, ns=(0, 0))  # oldest: never among the newest /glob lists first


def cpu_seconds(pid: int | None = None) -> float:
    """CPU time (user and system) of this process and its waited-for children, or of process `pid` and its."""
    if pid is None:
        mine, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return mine.ru_utime + mine.ru_stime + children.ru_utime + children.ru_stime
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")


def paired(ours: Callable[[], object], reference: Callable[[], object], rounds: int, pid: int | None = None
           ) -> tuple[float, float, float]:
    """Median ms of each, the two run back to back in every round (after one warm-up round), and the ratio of
    their CPU time (user and system, children included: rg's threads, stringsh's rg), which a busy machine changes
    less than the wall-clock times. `pid`: stringsh runs in that process (the daemon), not this one."""
    samples: tuple[list[float], list[float]] = ([], [])
    cpu = [0.0, 0.0]
    for index in range(rounds + 1):
        for slot, action in ((1, reference), (0, ours)):
            before = cpu_seconds(pid if slot == 0 else None)
            started = time.perf_counter()
            action()
            if index:
                samples[slot].append((time.perf_counter() - started) * 1000)
                cpu[slot] += cpu_seconds(pid if slot == 0 else None) - before
    return statistics.median(samples[0]), statistics.median(samples[1]), cpu[0] / cpu[1] if cpu[1] else 0.0


def rg_run(rg: str, root: Path, *args: str) -> Callable[[], object]:
    return lambda: subprocess.run([rg, *args], cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  check=False)


def searched(dispatcher: Dispatcher, command: str) -> Callable[[], object]:
    def run() -> None:
        reply = dispatcher.execute(command)
        assert reply.ok, reply.text

    return run


EVERYTHING = ("--no-config", "--hidden", "--no-ignore")
Row = tuple[str, float, float, float, float]


def grep_rows(dispatcher: Dispatcher, rg: str, big: Path, rounds: int) -> list[Row]:
    """/grep literal and regex, each with the rg engine and the Python engine, and the counted walk."""
    ws = dispatcher.workspace
    rows: list[Row] = []
    for label, query, regex in (("literal", LITERAL, False), ("regex", REGEX, True)):
        reference = rg_run(rg, big, *EVERYTHING, *(() if regex else ("-F",)), "--regexp", query)
        flag = " --regex" if regex else ""
        command = f"/grep '{query}'{flag} --max {MAX}"
        result = ws.grep(query, regex=regex, max_results=MAX)
        assert result.engine == "rg", result.engine
        took, ref, cpu = paired(searched(dispatcher, command), reference, rounds)
        rows.append((f"/grep {label}, rg engine ({result.matches} lines in {result.files} files)", took, ref,
                     cpu, 1.3))
        took, ref, cpu = paired(lambda q=query, r=regex: ws.grep(q, regex=r, engine="python", max_results=MAX),
                                reference, rounds)
        rows.append((f"/grep {label}, Python engine", took, ref, cpu, 3.0))
    took, ref, cpu = paired(searched(dispatcher, f"/grep '{LITERAL}' --max {MAX} --stats"),
                            rg_run(rg, big, *EVERYTHING, "-F", "--regexp", LITERAL), rounds)
    rows.append(("/grep literal --stats (the counted walk; no goal)", took, ref, cpu, 0.0))
    return rows


def glob_rows(dispatcher: Dispatcher, rg: str, big: Path, rounds: int) -> list[Row]:
    """/glob '**/*.py' (name order, rg's walk; the goal's row), then newest first (`--sort mtime`) and the Python
    walk, each against `rg --files -g '*.py'`."""
    ws = dispatcher.workspace
    found = ws.glob("**/*.py", max_results=MAX)
    reference = rg_run(rg, big, *EVERYTHING, "--files", "-g", "*.py")
    took, ref, cpu = paired(searched(dispatcher, "/glob '**/*.py'"), reference, rounds)
    rows: list[Row] = [(f"/glob '**/*.py' ({found.total} files, {found.engine} walk)", took, ref, cpu, 1.5)]
    took, ref, cpu = paired(searched(dispatcher, "/glob '**/*.py' --sort mtime"), reference, rounds)
    rows.append(("/glob '**/*.py' --sort mtime (a stat per match; no goal)", took, ref, cpu, 0.0))
    took, ref, cpu = paired(lambda: ws.glob("**/*.py", engine="python"), reference, rounds)
    rows.append(("/glob '**/*.py', Python walk (no goal)", took, ref, cpu, 0.0))
    return rows


def daemon_row(root: Path, rg: str, rounds: int) -> tuple[str, float, float, float, float]:
    """/grep sent to a running `stringsh daemon` (its round trip) against `rg -n` started for each search."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    daemon = subprocess.Popen([sys.executable, "-m", "stringsh", "daemon"], cwd=root, env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert daemon.stdin is not None and daemon.stdout is not None
    counter = iter(range(1 << 30))
    lines: list[bytes] = []

    def ask() -> None:
        lines.clear()
        daemon.stdin.write(f"[g{next(counter)}] /grep '{LITERAL}' --max {MAX}\n".encode())
        daemon.stdin.flush()
        while (line := daemon.stdout.readline()) != END:
            if not line:
                raise SystemExit("the daemon ended")
            lines.append(line)

    try:
        for _ in range(5):
            ask()  # warm: imports, the first request's set-up
        took, reference, cpu = paired(ask, rg_run(rg, root, "--no-config", "-n", "-F", LITERAL), rounds * 3,
                                      daemon.pid)
        hits = sum(1 for line in lines if b":" in line and LITERAL.encode() in line)
    finally:
        daemon.stdin.close()
        daemon.wait(timeout=60)
    return f"/grep in a running daemon, {hits} lines (5k tree)", took, reference, cpu, 1.3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--files", type=int, default=51_534)
    parser.add_argument("--daemon-files", type=int, default=5_000)
    parser.add_argument("--keep", type=Path, help="build the trees here once and reuse them")
    parser.add_argument("--tree", type=Path, help="the big tree, built before (only read)")
    parser.add_argument("--only", default="grep,glob,daemon", help="the rows to run: grep, glob, daemon")
    args = parser.parse_args()
    only = set(args.only.split(","))
    if not only or only - {"grep", "glob", "daemon"}:
        parser.error("--only takes grep, glob and daemon, separated by commas")
    rg = find_rg()
    if rg is None:
        sys.exit("bench/search.py compares against ripgrep: pip install --only-binary=ripgrep 'stringsh[search]'")
    isolate_user_state()
    with tempfile.TemporaryDirectory(prefix="stringsh-bench-search-") as scratch:
        base = args.keep.resolve() if args.keep else Path(scratch)
        big, small = base / f"tree{args.files}", base / f"tree{args.daemon_files}"
        if args.tree:
            big = args.tree.resolve()
            if not (big / ".built").is_file():
                sys.exit(f"--tree {big}: no tree built there (build one with --keep)")
        started = time.perf_counter()
        for root, want in ((big, args.files), (small, args.daemon_files)):
            if (root == big and args.tree) or (root == small and "daemon" not in only):
                continue
            root.mkdir(parents=True, exist_ok=True)
            build_tree(root, want)
        version = subprocess.run([rg, "--version"], capture_output=True, text=True, check=True).stdout.split()[1]
        print(f"trees: {args.files} and {args.daemon_files} generated files, ready in "
              f"{time.perf_counter() - started:.1f} s; median of {args.rounds} paired runs (daemon: "
              f"{args.rounds * 3}); rg {version}, {os.cpu_count()} cores")
        dispatcher = Dispatcher(big)
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        rows: list[Row] = []
        if "grep" in only:
            rows += grep_rows(dispatcher, rg, big, args.rounds)
        if "glob" in only:
            rows += glob_rows(dispatcher, rg, big, args.rounds)
        rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        dispatcher.close()
        if "daemon" in only:
            rows.append(daemon_row(small, rg, args.rounds))
    print(f"{'what':<62} {'stringsh ms':>11} {'rg ms':>8} {'ratio':>6} {'goal':>6} {'cpu ratio':>9}")
    for what, took, ref, cpu, goal in rows:
        aim = f"{goal:>5}x" if goal else f"{'-':>6}"
        print(f"{what:<62} {took:>11.1f} {ref:>8.1f} {took / ref:>5.2f}x {aim} {cpu:>8.2f}x")
        record.record("search", re.sub(r" \(.*|, \d+ lines.*", "", what), took / 1000,
                      "rg -n" if "daemon" in what else "rg", ref / 1000, goal or None)
    print("ratio: of the median wall-clock times (the goal's measure); cpu ratio: of the CPU time of all runs")
    print(f"peak RSS: {rss_after / 1024:.0f} MB (was {rss_before / 1024:.0f} MB before the searches)")


if __name__ == "__main__":
    main()
