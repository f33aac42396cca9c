"""The filesystem's own stalls, as a process that has nothing to do with the bench sees them.

A bench that times writes under load cannot tell, from its own figures, a wait of ours from a wait of the disk. So a
process of its own rewrites a small file beside the workspace every 10 ms (opened with truncation, written, closed:
no sync, as a shell writes its command file) and notes each rewrite that took `STALL_MS` or more. Such a stall holds
up every process writing to that filesystem, whatever it is doing; on the development VM's ext4 disk, in some runs
of `bench/load.py`, they came every few seconds, up to 0.8 s each (in others not once); never on tmpfs.

    with StallWatch(folder) as watch:
        watch.mark("load")        # a phase starts (the one before ends)
        ...
    watch.summary("load")         # (stalls, worst ms, ms in all, phase seconds)
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

#: A rewrite that took this long or longer is a stall.
STALL_MS = 50.0

WATCHER = r"""
import json, os, sys, time
folder, limit = sys.argv[1], float(sys.argv[2]) / 1000
path = os.path.join(folder, "stallwatch.txt")
stalls = []
os.set_blocking(0, False)
while True:
    try:
        if os.read(0, 1) == b"":
            break
    except BlockingIOError:
        pass
    time.sleep(0.01)
    start = time.perf_counter()
    with open(path, "w") as file:
        file.write("x" * 100)
    took = time.perf_counter() - start
    if took >= limit:
        stalls.append((time.time() - took, took * 1000))
print(json.dumps(stalls))
"""


def filesystem(path: Path) -> tuple[str, str]:
    """(type, source) of the filesystem `path` is on, from the mount table: the longest mount point above it."""
    best, found = "", ("unknown", "unknown")
    resolved = str(path.resolve())
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split()
        point = fields[4].replace("\\040", " ")
        after = fields[fields.index("-") + 1:]
        inside = resolved == point or resolved.startswith(point.rstrip("/") + "/")
        if inside and len(point) >= len(best):
            best, found = point, (after[0], after[1])
    return found


class StallWatch:
    """The watcher process and the bench's phases (wall-clock spans) to count its stalls in."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.phases: dict[str, list[float]] = {}
        self.current: str | None = None
        self.stalls: list[tuple[float, float]] = []
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> StallWatch:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen([sys.executable, "-c", WATCHER, str(self.folder), str(STALL_MS)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        return self

    def mark(self, phase: str | None) -> None:
        """`phase` starts now (None: the current one ends)."""
        now = time.time()
        if self.current is not None:
            self.phases[self.current][1] = now
        self.current = phase
        if phase is not None:
            self.phases[phase] = [now, now]

    def __exit__(self, *exc: object) -> None:
        self.mark(None)
        assert self.process is not None and self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.close()  # the watcher's end of input: it prints its stalls and ends
        out = self.process.stdout.read()
        self.process.wait(timeout=30)
        self.stalls = [(at, took) for at, took in json.loads(out or b"[]")]

    def summary(self, phase: str) -> tuple[int, float, float, float]:
        """(stalls that began in `phase`, the worst in ms, their ms in all, the phase's seconds)."""
        start, end = self.phases[phase]
        inside = [took for at, took in self.stalls if start <= at < end]
        return len(inside), max(inside, default=0.0), sum(inside), end - start

    def line(self, phases: list[str]) -> str:
        """What the watcher saw, phase by phase, for the bench's report."""
        kind, source = filesystem(self.folder)
        parts = []
        for phase in phases:
            count, worst, total, seconds = self.summary(phase)
            parts.append(f"{phase} ({seconds:.0f} s): {count}" + (f", worst {worst:.0f} ms, {total / 1000:.1f} s in "
                                                                   f"all" if count else ""))
        return (f"the filesystem under the workspace ({kind} on {source}): rewrites of a small file by a process of "
                f"its own stalled >= {STALL_MS:g} ms: " + "; ".join(parts))
