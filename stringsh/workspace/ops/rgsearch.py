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

import functools
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from stringsh.errors import StringError
from stringsh.workspace.ops.walk import Found, Start, WalkStats

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace
    from stringsh.workspace.ops.glob import NamePattern
    from stringsh.workspace.ops.grep import GrepRequest, Run
    from stringsh.workspace.ops.legacytext import RgSearch
    from stringsh.workspace.ops.rgwalk import Folders

#: Bytes of path arguments per rg run (well under Linux's 2 MiB ARG_MAX, environment included).
BATCH_BYTES = 1024 * 1024
#: Files per rg run: small enough that rg starts while the walk goes on.
BATCH_FILES = 8000
#: rg runs at once (each uses several threads of its own).
PARALLEL = 2
FLAGS = ("--no-config", "--files-with-matches", "--null", "--text", "--crlf", "--no-ignore", "--hidden",
         "--no-messages", "--color", "never")

@functools.cache
def find_rg() -> str | None:
    """The `rg` next to this interpreter (the `ripgrep` package's), else on PATH; looked up once."""
    return shutil.which("rg", path=str(Path(sys.executable).parent)) or shutil.which("rg")


class RgPool:
    """rg runs over the walk's files, started batch by batch while the walk goes on (so rg and the walk overlap);
    `finish` says which files matched, or None when rg refused the pattern or failed."""

    def __init__(self, rg: str, root: Path, patterns: tuple[str, ...], *, regex: bool, ignore_case: bool) -> None:
        from stringsh.workspace.ops.legacytext import flags

        self.command = [rg, *FLAGS, *flags(patterns, regex=regex, ignore_case=ignore_case), "--"]
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


def counted_search(ws: Workspace, run: Run, rg: str, request: GrepRequest, start: Start,
             only: re.Pattern[str] | NamePattern | None, cut: int, search: RgSearch) -> str:
    """With --stats: the counted walk first, rg then says which of its files may match `search`
    (legacytext.rg_search; with grep.secret_patterns, which may hold a secret too), and they are shown as the Python
    engine would (see rgsearch.py); when the results run out at a file, the counters are those the walk had reached
    at that file."""
    from stringsh.workspace.ops.rgwalk import Folders
    from stringsh.workspace.ops.walk import walk

    stats = run.stats
    candidates: list[tuple[str, os.stat_result, tuple[int, ...]]] = []
    pool = RgPool(rg, ws.confiner.real, search.patterns, regex=search.regex, ignore_case=request.ignore_case)
    shown = ws.redactor
    try:
        for found in walk(ws, start, stats):
            wanted = only is None or only.fullmatch(shown(found.rel[cut:])) is not None
            if wanted and found.st is not None and run.admit(found.st):  # walked with stats: st is always set
                candidates.append((found.rel, found.st, (*_walked(stats), run.counts.too_large)))
                pool.add(found.rel)
    except BaseException:
        pool.close()  # no rg left running after an error
        raise
    hits = pool.finish()
    walked_io = stats.skipped_io_errors
    folders = Folders(ws)
    try:
        for rel, st, mark in candidates:
            if hits is not None and rel not in hits:
                continue
            if _search_walked(ws, run, folders, rel, st):
                late_io = stats.skipped_io_errors - walked_io
                (stats.scanned_files, stats.scanned_entries, stats.skipped_walk_errors, stats.skipped_io_errors,
                 stats.skipped_symlinks, run.counts.too_large) = mark
                stats.skipped_io_errors += late_io
                stats.limit_reason = "results"
                break
    finally:
        folders.close()
    return "rg" if hits is not None else "python"


def _search_walked(ws: Workspace, run: Run, folders: Folders, rel: str, st: os.stat_result) -> bool:
    """A walked file rg found a match in, opened again in its folder (another root's through the Confiner); the
    open re-checks it is the file the walk saw (grep.Run._read): one swapped since is skipped and counted."""
    if ":" in rel:  # another root's names are its own
        try:
            res = ws.confiner.resolve(rel)
        except StringError:
            run.stats.skipped_io_errors += 1  # changed since the walk
            return False
        with res:
            return run.search(Found(rel, res.parent_fd, res.name, st))
    parent, _, name = rel.rpartition("/")
    try:
        fd = folders.open(parent)
    except OSError:
        run.stats.skipped_io_errors += 1  # changed since the walk
        return False
    return run.search(Found(rel, fd, name, st))


def _walked(stats: WalkStats) -> tuple[int, int, int, int, int]:
    return (stats.scanned_files, stats.scanned_entries, stats.skipped_walk_errors, stats.skipped_io_errors,
            stats.skipped_symlinks)
