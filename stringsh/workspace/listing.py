"""Directory listing used by `/ls` until the engine's confined `list_dir` replaces it."""

from __future__ import annotations

import os
from pathlib import Path

from stringsh.errors import StringError


def list_directory(root: Path, path: str) -> tuple[str, list[tuple[str, bool]]]:
    """Return the root-relative display path and (name, is_dir) entries of a folder."""
    target = (root / path).resolve()
    if target != root and root not in target.parents:
        raise StringError("INVALID_PATH", f"Path escapes the workspace: {path}")
    if not target.exists():
        raise StringError("NOT_FOUND", "Not found", f"No such folder: {path}")
    if not target.is_dir():
        raise StringError("INVALID_TARGET", "Not a directory", f"{path} is a file; use /open {path}")
    rel = target.relative_to(root).as_posix()
    with os.scandir(target) as entries:
        return rel or ".", [(entry.name, entry.is_dir()) for entry in entries]
