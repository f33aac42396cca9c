"""ripgrep as the prefilter of grep's counted walk (`--stats`): which of the walked files hold a match, found by
`rg` over exactly those files (without `--stats`, rg walks itself: rgwalk.py).

Here rg does not walk: it gets the confined walk's file list as arguments, in batches, and only answers "these
files match". Every line shown is
then read, decoded, redacted and matched by the same Python code as the fallback, through the Confiner, with the
walk's file identity re-checked, so both engines give identical replies and rg never decides what is shown.
rg's regex engine is a finite automaton (it cannot backtrack); a pattern rg does not accept makes the whole search
fall back to Python. `pip install 'stringsh[search]'` (the `ripgrep` package) or any `rg` on PATH enables it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

#: Bytes of path arguments per rg run (well under Linux's 2 MiB ARG_MAX, environment included).
BATCH_BYTES = 1024 * 1024
#: Files per rg run: small enough that rg starts while the walk goes on.
BATCH_FILES = 8000
#: rg runs at once (each uses several threads of its own).
PARALLEL = 2
FLAGS = ("--no-config", "--files-with-matches", "--null", "--text", "--crlf", "--no-ignore", "--hidden",
         "--no-messages", "--color", "never")

_found: list[str | None] = []


def find_rg() -> str | None:
    """The `rg` next to this interpreter (the `ripgrep` package's), else on PATH; looked up once."""
    if not _found:
        beside = Path(sys.executable).parent / "rg"
        _found.append(str(beside) if os.access(beside, os.X_OK) else shutil.which("rg"))
    return _found[0]


class RgPool:
    """rg runs over the walk's files, started batch by batch while the walk goes on (so rg and the walk overlap);
    `finish` says which files matched, or None when rg refused the pattern or failed."""

    def __init__(self, rg: str, root: Path, query: str, *, regex: bool, ignore_case: bool) -> None:
        self.command = [rg, *FLAGS, *(() if regex else ("--fixed-strings",)),
                        *(("--ignore-case",) if ignore_case else ()), "--regexp", query, "--"]
        self.root = root
        self.batch: list[str] = []
        self.size = 0
        self.running: list[subprocess.Popen[bytes]] = []
        self.hits: set[str] = set()
        self.failed = False

    def add(self, rel: str) -> None:
        self.batch.append(rel)
        self.size += len(rel.encode("utf-8", "surrogateescape")) + 9  # the pointer and NUL each argument costs
        if self.size >= BATCH_BYTES or len(self.batch) >= BATCH_FILES:
            self._start()

    def _start(self) -> None:
        if not self.batch or self.failed:
            return
        while len(self.running) >= PARALLEL:
            self._collect(self.running.pop(0))
        self.running.append(subprocess.Popen([*self.command, *self.batch], cwd=self.root, stdin=subprocess.DEVNULL,
                                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL))
        self.batch, self.size = [], 0

    def _collect(self, process: subprocess.Popen[bytes]) -> None:
        out, _ = process.communicate()
        if process.returncode not in (0, 1) and not out:
            self.failed = True  # a regex rg does not accept (or rg broke): Python searches instead
        self.hits.update(os.fsdecode(name) for name in out.split(b"\0") if name)

    def finish(self) -> set[str] | None:
        try:
            self._start()
            while self.running:
                self._collect(self.running.pop(0))
        finally:
            self.close()
        return None if self.failed else self.hits

    def close(self) -> None:
        for process in self.running:
            process.kill()
            process.wait()
        self.running = []
