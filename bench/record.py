"""One figure row of a bench: its standard line (the reference time beside the ratio) and, when asked, a line of the
tree's benchmark history, so docs/benchmarks.md and its plots (bench/plot.py) come from what the benches measured.

Recording is asked for with `--record FILE` on any bench's command line (taken off `sys.argv` when this module is
imported, before the bench parses its own arguments) or `STRINGSH_BENCH_RECORD=FILE`; each row then appends one
JSON line to FILE: area, row, ratio, the measured and reference times (ms), the goal, the tree's commit, the date,
the load average and the machine's cores. `python bench/changes.py --record bench/history.jsonl` adds a run to the
committed history.
"""

from __future__ import annotations

import datetime
import functools
import json
import os
import subprocess
import sys
from pathlib import Path

ENVIRONMENT = "STRINGSH_BENCH_RECORD"
HERE = Path(__file__).resolve().parent


def take_record_argument(argv: list[str]) -> str | None:
    """Remove `--record FILE` / `--record=FILE` from argv (the bench's own parser never sees it) and return FILE."""
    for index, arg in enumerate(argv):
        if arg == "--record" and index + 1 < len(argv):
            target = argv[index + 1]
            del argv[index:index + 2]
            return target
        if arg.startswith("--record="):
            del argv[index]
            return arg.split("=", 1)[1]
    return None


_argument = take_record_argument(sys.argv)
if _argument:
    os.environ[ENVIRONMENT] = str(Path(_argument).resolve())  # child processes and later rows see it too


@functools.cache
def commit() -> str | None:
    """The commit of the tree the bench runs from (None outside a git checkout)."""
    try:
        done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=HERE, capture_output=True, text=True, check=False)
    except OSError:
        return None
    return done.stdout.strip() or None


def goal_of(area: str, name: str) -> float | None:
    """The row's goal as docs/benchmarks.md states it (bench/catalogue.py), for benches that print none."""
    from catalogue import AREAS

    return next((row.goal for each in AREAS if each.key == area for row in each.rows if row.name == name), None)


def record(area: str, name: str, measured_s: float, reference_name: str, reference_s: float,
           goal_ratio: float | None, *, ratio: float | None = None,
           target: str | None = None) -> dict[str, object] | None:
    """Append the row to the history file when recording is on (returns the entry written, else None). `ratio`:
    the figure the bench prints when it is not measured / reference (e.g. a median of per-round ratios)."""
    target = target or os.environ.get(ENVIRONMENT)
    if not target:
        return None
    entry: dict[str, object] = {
        "area": area, "row": name,
        "ratio": round(ratio if ratio is not None else measured_s / reference_s, 4) if reference_s else None,
        "measured_ms": round(measured_s * 1000, 4), "reference": reference_name,
        "reference_ms": round(reference_s * 1000, 4), "goal": goal_ratio, "commit": commit(),
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "loadavg": " ".join(f"{load:.2f}" for load in os.getloadavg()),
        "cores": os.cpu_count(), "source": f"bench/{Path(sys.argv[0]).name} run",
    }
    with open(target, "a", encoding="utf-8") as history:
        history.write(json.dumps(entry, ensure_ascii=False) + "\n")
    return entry


def row(area: str, name: str, measured_s: float, reference_name: str, reference_s: float,
        goal_ratio: float | None) -> float:
    """Print the standard line of one figure, the reference's time beside the ratio, record it, and return the
    ratio (a bench that prints its own line calls `record` alone)."""
    ratio = measured_s / reference_s
    goal = f"goal <= {goal_ratio:g}x" if goal_ratio else "no goal"
    print(f"{name}: {measured_s * 1000:.2f} ms against {reference_name} {reference_s * 1000:.2f} ms, "
          f"ratio {ratio:.2f}x ({goal})")
    record(area, name, measured_s, reference_name, reference_s, goal_ratio)
    return ratio
