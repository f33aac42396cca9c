"""Benchmark: `Workspace.list_dir` of a folder of 1,000 plain files (MCP `list_directory`, `/ls`, completion), p50
and p95, as ratios to a bare `os.scandir` + sort by name of the same folder (names and d_type folder flags), measured
in the same run, round by round, so load from other processes hits both alike.

Rows: the workspace root; a subfolder; the root with a policy adding user deny globs (stringsh.toml); and the root
with a fresh secret matcher before every round ("cold": no name seen before, as the first listing of a folder).
Goal: list_dir within 2-3x of scandir + sort.
Run: python bench/listing.py [rounds] [--files N]
"""

from __future__ import annotations

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

from stringsh.workspace import Workspace
from stringsh.workspace.layers import load_policy

SUFFIXES = (".py", ".md", ".txt", ".json", ".ts", ".yaml", ".c", ".h", ".toml", "")
USER_POLICY = '[secrets]\ndeny_globs = ["*.secret", "private/**", "build/*.log", "**/tmp?/*.bak"]\n'


def percentile(samples: list[float], pct: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))]


def timed(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def fill(folder: Path, files: int) -> None:
    """`files` plain files with varied, realistic names (a few folders among them would change nothing measured)."""
    folder.mkdir(parents=True, exist_ok=True)
    for index in range(files):
        (folder / f"module_{index:04d}_part{SUFFIXES[index % len(SUFFIXES)]}").write_bytes(b"x\n")


def scandir_sorted(folder: Path) -> list[tuple[str, bool]]:
    with os.scandir(folder) as entries:
        return sorted(((e.name, e.is_dir(follow_symlinks=False)) for e in entries), key=lambda pair: pair[0])


def measure(label: str, ws: Workspace, rel: str, folder: Path, rounds: int, *, cold: bool = False) -> None:
    expected = scandir_sorted(folder)
    got = [(e.name, e.is_dir) for e in ws.list_dir(rel)]
    assert got == [pair for pair in expected if pair[0] != ".stringsh"], f"{label}: listings differ"
    ours: list[float] = []
    bare: list[float] = []
    for _ in range(rounds):
        if cold:
            ws.confiner.matcher = ws.policy.matcher()  # no name seen before, as a first listing
        ours.append(timed(lambda: ws.list_dir(rel)))
        bare.append(timed(lambda: scandir_sorted(folder)))
    p50, p95 = statistics.median(ours), percentile(ours, 95)
    b50, b95 = statistics.median(bare), percentile(bare, 95)
    print(f"{label:<34} {p50:8.2f} {p95:8.2f} {b50:8.2f} {b95:8.2f} {p50 / b50:6.2f} {p95 / b95:6.2f}")
    record.record("front ends", f"list_dir 1,000 files, {label}, p50", p50 / 1000, "os.scandir + sort", b50 / 1000, 3)


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    rounds = int(args[0]) if args else 200
    files = int(sys.argv[sys.argv.index("--files") + 1]) if "--files" in sys.argv else 1000
    isolate_user_state()
    with tempfile.TemporaryDirectory(prefix="stringsh-bench-listing-") as base:
        plain, custom = Path(base) / "plain", Path(base) / "custom"
        fill(plain, files)
        fill(plain / "src", files)
        fill(custom, files)
        (custom / "stringsh.toml").write_bytes(USER_POLICY.encode())
        print(f"list_dir of {files} plain files, {rounds} rounds; ms; x: ratio to os.scandir + sort of the same folder")
        print(f"{'case':<34} {'p50':>8} {'p95':>8} {'bare p50':>8} {'bare p95':>8} {'x p50':>6} {'x p95':>6}")
        ws = Workspace(plain)
        try:
            measure("root folder", ws, ".", plain, rounds)
            measure("subfolder src/", ws, "src", plain / "src", rounds)
            measure("root folder, cold matcher", ws, ".", plain, rounds, cold=True)
        finally:
            ws.close()
        ws = Workspace(custom, load_policy(custom))
        assert "*.secret" in ws.policy.secrets.deny_globs, ws.policy.layers
        try:
            measure("root folder, user deny globs", ws, ".", custom, rounds)
        finally:
            ws.close()


if __name__ == "__main__":
    main()
