"""Benchmark: apply and revert of 1-file and 10-file change sets (4 KB files), p50 and p95, as ratios to
writing the same bytes with temp file + fsync + rename (+ one folder fsync) in the same run.

Goal (issue 3): 10 files p95 <= 10 ms apply and <= 5 ms revert, and <= 1.5x the raw writes.
Run: python bench/changes.py [rounds]
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchenv import isolate_user_state

from stringsh.workspace import ChangeSet, Workspace

SIZE = 4096


def percentile(samples: list[float], pct: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))]


def payload(round_: int, index: int) -> bytes:
    line = f"round {round_:06d} file {index:03d} ".encode()
    return (line * (SIZE // len(line) + 1))[:SIZE]


def raw_writes(folder: Path, count: int, round_: int) -> float:
    """What a careful tool does without a journal: temp, fsync, rename per file, then fsync the folder."""
    started = time.perf_counter()
    for index in range(count):
        final = folder / f"f{index}.txt"
        tmp = folder / f".f{index}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.write(fd, payload(round_, index))
        os.fsync(fd)
        os.close(fd)
        os.replace(tmp, final)
    dir_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    os.fsync(dir_fd)
    os.close(dir_fd)
    return (time.perf_counter() - started) * 1000


def run(count: int, rounds: int, base: Path) -> dict[str, list[float]]:
    raw_dir = base / f"raw{count}"
    raw_dir.mkdir()
    root = base / f"ws{count}"
    root.mkdir()
    workspace = Workspace(root)
    for index in range(count):
        (root / f"f{index}.txt").write_bytes(payload(-1, index))
    samples: dict[str, list[float]] = {"raw": [], "apply": [], "revert": []}
    for round_ in range(rounds):
        samples["raw"].append(raw_writes(raw_dir, count, round_))
        changeset = ChangeSet()
        for index in range(count):
            changeset.write(f"f{index}.txt", payload(round_, index))
        started = time.perf_counter()
        change = workspace.apply(changeset)
        samples["apply"].append((time.perf_counter() - started) * 1000)
        if round_ % 2:
            started = time.perf_counter()
            workspace.revert(change)
            samples["revert"].append((time.perf_counter() - started) * 1000)
    workspace.close()
    return samples


def main() -> None:
    isolate_user_state()
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    with tempfile.TemporaryDirectory(prefix="stringsh-bench-", dir=os.environ.get("BENCH_DIR")) as tmp:
        base = Path(tmp)
        print(f"change sets of 4 KB files, {rounds} rounds, in {base} (times in ms)")
        print(f"{'files':>5} {'op':>7} {'p50':>8} {'p95':>8} {'raw p50':>8} {'raw p95':>8} {'x p50':>6} {'x p95':>6}")
        for count in (1, 10):
            samples = run(count, rounds, base)
            raw50, raw95 = statistics.median(samples["raw"]), percentile(samples["raw"], 95)
            for op in ("apply", "revert"):
                p50, p95 = statistics.median(samples[op]), percentile(samples[op], 95)
                print(f"{count:>5} {op:>7} {p50:8.2f} {p95:8.2f} {raw50:8.2f} {raw95:8.2f} "
                      f"{p50 / raw50:6.2f} {p95 / raw95:6.2f}")


if __name__ == "__main__":
    main()
