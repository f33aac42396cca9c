"""ripgrep as grep's prefilter: which of the walked files hold a match. rg only ever answers "these files match";
the confined walk (ops/walk.py) decides which files exist for the search, and every line shown is then read,
decoded, redacted and matched by the same Python code as the fallback, through the Confiner, with the walk's file
identity re-checked, so both engines give identical replies and rg never decides what is shown.

Two ways to ask it. `RgWalk`: rg walks the search folder on its own (no symlinks followed, `.git/`, `.stringsh/`
and temp files excluded so it wastes no time there), at the same time as the Python walk; its nominations are then
intersected with the files the walk admitted, so rg can only pass over a file (one it found no match in), never add
one (its `--no-ignore`, hidden-file and secret handling only cost it time). rg's own walk skips file symlinks: the
walk's symlinked files go to `RgPool`, which runs rg over exactly the files it is given, in batches started while
the walk goes on (also the whole answer for a `--glob` filter or another root).
rg's regex engine is a finite automaton (it cannot backtrack); a pattern rg does not accept makes the whole search
fall back to Python. `pip install 'stringsh[search]'` (the `ripgrep` package) or any `rg` on PATH enables it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

from stringsh.workspace.paths import STATE_DIR, TEMP_PREFIX

#: Bytes of path arguments per rg run (well under Linux's 2 MiB ARG_MAX, environment included).
BATCH_BYTES = 1024 * 1024
#: Files per rg run: small enough that rg starts while the walk goes on.
BATCH_FILES = 8000
#: rg runs at once (each uses several threads of its own).
PARALLEL = 2
FLAGS = ("--no-config", "--files-with-matches", "--null", "--text", "--crlf", "--no-ignore", "--hidden",
         "--no-messages", "--color", "never")

#: Never worth rg's time: the walk never yields them (`/.stringsh/` is anchored at rg's working folder, the root).
WALK_EXCLUDES = ("--glob", "!.git/", "--glob", f"!{TEMP_PREFIX}*", "--glob", f"!/{STATE_DIR}/")

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


class RgWalk:
    """rg walking `folder` (root-relative, "." for the root) on its own while the Python walk runs; `finish` gives
    the files it found a match in (root-relative, as the walk names them), or None when rg refused the pattern or
    failed. Files over `max_bytes` are never searched (the walk does not admit them)."""

    def __init__(self, rg: str, root: Path, folder: str, query: str, *, regex: bool, ignore_case: bool,
                 max_bytes: int) -> None:
        command = [rg, *FLAGS, "--max-filesize", str(max_bytes), *WALK_EXCLUDES,
                   *(() if regex else ("--fixed-strings",)), *(("--ignore-case",) if ignore_case else ()),
                   "--regexp", query, "--", *(() if folder == "." else (folder,))]
        self.process = subprocess.Popen(command, cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL)
        self.out = b""
        # drained as it comes, so rg never waits on a full pipe while the walk goes on
        self.reader = threading.Thread(target=self._drain, daemon=True)
        self.reader.start()

    def _drain(self) -> None:
        stdout = self.process.stdout
        if stdout is not None:
            self.out = stdout.read()

    def finish(self) -> set[str] | None:
        try:
            self.reader.join()
            returncode = self.process.wait()
        finally:
            self.close()
        if returncode not in (0, 1) and not self.out:
            return None  # a regex rg does not accept (or rg broke): Python searches instead
        return {os.fsdecode(name) for name in self.out.split(b"\0") if name}

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.reader.join()
        if self.process.stdout is not None:
            self.process.stdout.close()
