"""ripgrep as grep's prefilter: which of the walked files hold a match, found by `rg` over exactly those files.

rg never walks on its own (its ignore rules, symlink handling and hidden-file rules are not ours): it gets the
confined walk's file list as arguments, in batches, and only answers "these files match". Every line shown is
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
BATCH_BYTES = 256 * 1024
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


def _batches(rels: list[str]) -> list[list[str]]:
    batches: list[list[str]] = [[]]
    size = 0
    for rel in rels:
        cost = len(rel.encode("utf-8", "surrogateescape")) + 9  # the pointer and NUL each argument costs
        if batches[-1] and size + cost > BATCH_BYTES:
            batches.append([])
            size = 0
        batches[-1].append(rel)
        size += cost
    return [batch for batch in batches if batch]


def files_with_matches(rg: str, root: Path, rels: list[str], query: str, *, regex: bool,
                       ignore_case: bool) -> set[str] | None:
    """The files of `rels` (root-relative) in which rg finds `query`; None when rg refused the pattern or failed."""
    command = [rg, *FLAGS, *(() if regex else ("--fixed-strings",)), *(("--ignore-case",) if ignore_case else ()),
               "--regexp", query, "--"]
    hits: set[str] = set()
    pending = _batches(rels)
    running: list[subprocess.Popen[bytes]] = []
    try:
        while pending or running:
            while pending and len(running) < PARALLEL:
                running.append(subprocess.Popen([*command, *pending.pop(0)], cwd=root, stdin=subprocess.DEVNULL,
                                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL))
            process = running.pop(0)
            out, _ = process.communicate()
            if process.returncode not in (0, 1) and not out:
                return None  # a regex rg does not accept (or rg broke): Python searches instead
            hits.update(os.fsdecode(name) for name in out.split(b"\0") if name)
    finally:
        for process in running:
            process.kill()
            process.wait()
    return hits
