"""Benchmark: apply and revert of change sets of 1, 10 and 100 files (4 KiB each) and of one 1 MiB file, p50 and
p95, as ratios to writing the same bytes the careful way without a journal (per file: temp, fsync, rename; then
one folder fsync), measured in the same run, round by round, so load from other processes hits both alike.

Every timed apply replaces bytes the journal has not seen (they are rewritten, untimed, before each round), so it
keeps fresh previous bytes each time, as real edits do. When the `/patch` command exists, a row times `/patch` of a
10-file unified diff (three changed lines per file) and its `/undo` through the dispatcher.

Goal: every size <= 1.2x the raw writes at p50 and p95; the change-set API asks apply p95 <= 100 ms, revert
<= 50 ms. Every row prints the raw reference's p50 and p95 (ms) beside its ratios.
Run: python bench/changes.py [rounds] [row ...]     rows: 1x4k 10x4k 100x4k 1x1024k patch (default: all)
     BENCH_DIR=folder to measure on another filesystem (a tmpfs such as /dev/shm shows the cost beyond syncs)
"""

from __future__ import annotations

import difflib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import record
from benchenv import isolate_user_state

from stringsh.workspace import ChangeSet, Workspace

KIB = 1024
#: (files, bytes each): the sizes of change sets measured.
CASES = ((1, 4 * KIB), (10, 4 * KIB), (100, 4 * KIB), (1, 1024 * KIB))
LIMITS = {"apply": 100.0, "revert": 50.0}  # the change-set API's p95, ms (docs/change-sets.md)


def percentile(samples: list[float], pct: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))]


def payload(tag: str, index: int, size: int) -> bytes:
    """Text of 64-byte lines, different for every tag and file (so the journal never has them already)."""
    lines = [f"{tag} file {index:03d} line {k:05d} ".ljust(63, ".").encode() + b"\n" for k in range(size // 64)]
    return b"".join(lines)


def timed(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def write_durably(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def raw_writes(folder: Path, blobs: list[bytes]) -> None:
    """What a careful tool does without a journal: temp, fsync, rename per file, then fsync the folder."""
    for index, data in enumerate(blobs):
        tmp = folder / f".f{index}.tmp"
        write_durably(tmp, data)
        os.replace(tmp, folder / f"f{index}.txt")
    dir_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def refresh(root: Path, count: int, size: int, tag: str) -> list[bytes]:
    """Untimed: put bytes the journal has never seen in the workspace's files (and make them durable)."""
    blobs = [payload(tag, index, size) for index in range(count)]
    for index, data in enumerate(blobs):
        write_durably(root / f"f{index}.txt", data)
    return blobs


def run(count: int, size: int, rounds: int, base: Path) -> dict[str, list[float]]:
    name = f"{count}x{size // KIB}k"
    raw_dir = base / f"raw{name}"
    raw_dir.mkdir()
    root = base / f"ws{name}"
    root.mkdir()
    workspace = Workspace(root)
    samples: dict[str, list[float]] = {"raw": [], "apply": [], "revert": []}
    for round_ in range(-3, rounds):  # three rounds to warm up (the journal, the fsync pool)
        refresh(root, count, size, f"base {round_}")
        blobs = [payload(f"round {round_}", index, size) for index in range(count)]
        changeset = ChangeSet()
        for index, data in enumerate(blobs):
            changeset.write(f"f{index}.txt", data)
        raw = timed(lambda: raw_writes(raw_dir, blobs))  # noqa: B023 (called at once)
        holder: list[int] = []
        apply = timed(lambda: holder.append(workspace.apply(changeset)))  # noqa: B023
        revert = timed(lambda: workspace.revert(holder[0]))  # noqa: B023
        if round_ >= 0:
            samples["raw"].append(raw)
            samples["apply"].append(apply)
            samples["revert"].append(revert)
    workspace.close()
    return samples


def unified(rel: str, old: bytes, new: bytes) -> str:
    return "".join(difflib.unified_diff(old.decode().splitlines(True), new.decode().splitlines(True),
                                        f"a/{rel}", f"b/{rel}"))


def run_patch(count: int, rounds: int, base: Path) -> dict[str, list[float]] | None:
    """`/patch` of a `count`-file diff and its `/undo`, through the dispatcher; None when there is no /patch."""
    from stringsh.commands.table import COMMANDS

    if "patch" not in COMMANDS:
        return None
    from stringsh.dispatcher import Dispatcher

    size = 4 * KIB
    raw_dir = base / "rawpatch"
    raw_dir.mkdir()
    root = base / "wspatch"
    root.mkdir()
    dispatcher = Dispatcher(root)
    samples: dict[str, list[float]] = {"raw": [], "apply": [], "revert": []}
    for round_ in range(-3, rounds):
        old = refresh(root, count, size, f"base {round_}")
        for index in range(count):  # untimed: an agent reads a file before it patches it (else CONFLICT)
            dispatcher.execute(f"/open f{index}.txt")
        new = []
        for data in old:
            lines = data.splitlines(True)
            for k in (5, 30, 55):
                lines[k] = f"changed in round {round_} line {k}\n".encode()
            new.append(b"".join(lines))
        diff = "".join(unified(f"f{index}.txt", a, b) for index, (a, b) in enumerate(zip(old, new, strict=True)))
        raw = timed(lambda: raw_writes(raw_dir, new))  # noqa: B023
        replies = []
        apply = timed(lambda: replies.append(dispatcher.execute(f"/patch\n{diff}")))  # noqa: B023
        revert = timed(lambda: replies.append(dispatcher.execute("/undo")))  # noqa: B023
        if not all(reply.ok for reply in replies):
            print(f"/patch row skipped: {replies[0].text.splitlines()[1]} / {replies[1].text.splitlines()[1]}")
            dispatcher.close()
            return None
        if round_ >= 0:
            samples["raw"].append(raw)
            samples["apply"].append(apply)
            samples["revert"].append(revert)
    dispatcher.close()
    return samples


def report(label: str, samples: dict[str, list[float]]) -> None:
    raw50, raw95 = statistics.median(samples["raw"]), percentile(samples["raw"], 95)
    for op in ("apply", "revert"):
        p50, p95 = statistics.median(samples[op]), percentile(samples[op], 95)
        print(f"{label:>12} {op:>7} {p50:8.2f} {p95:8.2f} {raw50:8.2f} {raw95:8.2f} "
              f"{p50 / raw50:6.2f} {p95 / raw95:6.2f} {LIMITS[op]:6.0f}")
        name = f"{op} {label}, p50" if not label.startswith("/patch") else (
            "/patch 10 files, p50" if op == "apply" else "/undo of /patch 10 files, p50")
        record.record("writes", name, p50 / 1000, "temp+fsync+rename", raw50 / 1000, record.goal_of("writes", name))


def main() -> None:
    isolate_user_state()
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    rows = set(sys.argv[2:]) or {f"{count}x{size // KIB}k" for count, size in CASES} | {"patch"}
    with tempfile.TemporaryDirectory(prefix="stringsh-bench-", dir=os.environ.get("BENCH_DIR")) as tmp:
        base = Path(tmp)
        print(f"change sets, {rounds} rounds, in {base} (times in ms; raw: temp+fsync+rename per file, "
              f"one folder fsync; x: ratio to raw; seed: the API's p95 limit)")
        print(f"{'change set':>12} {'op':>7} {'p50':>8} {'p95':>8} {'raw p50':>8} {'raw p95':>8} "
              f"{'x p50':>6} {'x p95':>6} {'seed':>6}")
        for count, size in CASES:
            if f"{count}x{size // KIB}k" in rows:
                report(f"{count} x {size // KIB} KiB", run(count, size, rounds, base))
        if "patch" not in rows:
            return
        patch = run_patch(10, rounds, base)
        if patch is None:
            print("/patch: not measured (no /patch command in this build)")
        else:
            report("/patch 10", patch)


if __name__ == "__main__":
    main()
