"""Which workspace a running process serves, so that its symbol index is built in the background from its first
search: a front end (the daemon, the MCP servers, the REPL) says so at start without importing the index itself
(SQLite, the grammars), which loads on the first `/symbols`."""

from __future__ import annotations

import os
from pathlib import Path

_served: frozenset[str] = frozenset()


def in_background(root: Path) -> None:
    """The process serves the workspace at `root` (its real path). `STRINGSH_SYMBOL_INDEX=0` turns the background
    index off (searches then use what exists)."""
    global _served
    if os.environ.get("STRINGSH_SYMBOL_INDEX", "1") != "0":
        _served = frozenset({str(root)})


def served(root: Path) -> bool:
    """Whether this process serves the workspace at `root`, whose index it keeps."""
    return str(root) in _served

