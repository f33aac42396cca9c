"""Directory listing for `/ls` (and `/open dir`), through the engine's confined `list_dir`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.errors import StringError

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace


def list_directory(workspace: Workspace, path: str, *, topic: str | None = None) -> tuple[str, list[tuple[str, bool]]]:
    """The root-relative display path and (name, is_dir) entries of a folder; secrets and `.stringsh/` are
    never listed. Missing folders are `NOT_FOUND` "Not found", files `INVALID_TARGET` "Not a directory"."""
    rel = workspace.relative(path)
    try:
        entries = workspace.list_dir(path, topic=topic)
    except StringError as exc:
        if exc.code == "NOT_FOUND":
            raise StringError("NOT_FOUND", "Not found", f"No such folder: {rel}") from None
        raise
    return rel, [(entry.name, entry.is_dir) for entry in entries]
