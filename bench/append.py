"""Benchmark: `append_text` (one line) to files of 4 KiB and 1000 KiB (near 1 MiB, the largest whose old bytes the
journal keeps a copy of, so `/changes` keeps the change before it), p50 and p95, with the copy and without it
(KEEP_COPY_BYTES set to 0: what an append cost before), each as ratios to appending the same line the careful way
without a journal (O_APPEND, fsync), measured in the same run, round by round; then copy / no copy per size.

Goal: keeping the copy costs at most 1.5x the append without it at p50, at 1000 KiB; every row prints the raw
reference's p50 and p95 (ms) beside its ratios.
Run: python bench/append.py [rounds]
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import record
from benchenv import isolate_user_state

from stringsh.workspace import Workspace
from stringsh.workspace.ops import appending

KIB = 1024
SIZES = (4 * KIB, 1000 * KIB)  # 1000 KiB: still under the copy limit after every round's line
LINE = "one more line of the log, as an agent appends it\n"


def percentile(samples: list[float], pct: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))]


def raw_append(path: Path) -> float:
    started = time.perf_counter()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, LINE.encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    return (time.perf_counter() - started) * 1000


def make(base: Path, name: str, text: str) -> Path:
    folder = base / name
    folder.mkdir()
    (folder / "log.txt").write_text(text)
    return folder


def timed_append(workspace: Workspace, copy: bool) -> float:
    appending.KEEP_COPY_BYTES = 1024 * KIB if copy else 0
    started = time.perf_counter()
    workspace.append_text("log.txt", LINE)
    return (time.perf_counter() - started) * 1000


def run(size: int, rounds: int, base: Path) -> dict[str, list[float]]:
    """Round by round, interleaved: the raw append, the append without a copy, the append with one."""
    text = "".join(f"log line {k:07d} ".ljust(63, ".") + "\n" for k in range(size // 64))
    raw_file = make(base, f"raw{size}", text) / "log.txt"
    plain, copying = Workspace(make(base, f"plain{size}", text)), Workspace(make(base, f"copy{size}", text))
    samples: dict[str, list[float]] = {"raw": [], "no copy": [], "copy": []}
    try:
        for round_ in range(-3, rounds):  # three rounds to warm up
            taken = {"raw": raw_append(raw_file), "no copy": timed_append(plain, False),
                     "copy": timed_append(copying, True)}
            if round_ >= 0:
                for key, value in taken.items():
                    samples[key].append(value)
    finally:
        plain.close()
        copying.close()
    return samples


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    isolate_user_state()
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR")) as folder:
        for size in SIZES:
            samples = run(size, rounds, Path(folder))
            raw = samples["raw"]
            for key in ("no copy", "copy"):
                ratios = [a / r for a, r in zip(samples[key], raw, strict=True)]
                print(f"{size // KIB:>5} KiB {key:<7}  append p50 {statistics.median(samples[key]):6.2f} ms "
                      f"p95 {percentile(samples[key], 95):6.2f} ms  ratio to raw p50 {statistics.median(ratios):5.2f}x "
                      f"p95 {percentile(ratios, 95):5.2f}x  (raw p50 {statistics.median(raw):.2f} ms, "
                      f"p95 {percentile(raw, 95):.2f} ms)")
            ratios = [c / n for c, n in zip(samples["copy"], samples["no copy"], strict=True)]
            record.record("writes", f"append {size // KIB} KiB, copy / no copy, p50",
                          statistics.median(samples["copy"]) / 1000, "the append without the copy",
                          statistics.median(samples["no copy"]) / 1000, 1.5 if size // KIB == 1000 else None,
                          ratio=statistics.median(ratios))
            print(f"{size // KIB:>5} KiB copy / no copy, p50 {statistics.median(ratios):.2f}x "
                  f"p95 {percentile(ratios, 95):.2f}x (reference: no copy p50 "
                  f"{statistics.median(samples['no copy']):.2f} ms)")


if __name__ == "__main__":
    main()
