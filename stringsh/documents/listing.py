"""Folder listings, shared by /ls and `/open <folder>`: directories first, dot-files hidden; and the folder a
relative path of /ls, /grep and /glob starts from after `/open <folder>`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.errors import StringError
from stringsh.escapes import shown_name
from stringsh.protocol.response import Result

if TYPE_CHECKING:
    from stringsh.documents.host import Caller
    from stringsh.workspace import Workspace


def list_directory(workspace: Workspace, path: str, *, topic: str | None = None) -> tuple[str, list[tuple[str, bool]]]:
    """The root-relative display path and (name, is_dir) entries of a folder, through the engine (secrets and
    `.stringsh/` are never listed). A missing folder is String's `NOT_FOUND` "Not found"."""
    rel = workspace.relative(path)
    try:
        entries = workspace.list_dir(path, topic=topic)
    except StringError as exc:
        if exc.code == "NOT_FOUND":
            raise StringError("NOT_FOUND", "Not found", f"No such folder: {rel}") from None
        raise
    return rel, [(entry.name, entry.is_dir) for entry in entries]


def format_listing(rel: str, entries: list[tuple[str, bool]], *, hidden: bool = False) -> Result:
    """`Listing rel/` then dirs (with `/`) and files, each sorted, dot-files hidden unless `hidden` (`/ls -a`)."""
    visible = [(name, is_dir) for name, is_dir in entries if hidden or not name.startswith(".")]
    dirs = sorted((name for name, is_dir in visible if is_dir), key=_sort_key)
    files = sorted((name for name, is_dir in visible if not is_dir), key=_sort_key)
    lines = [f"  {shown_name(name)}/" for name in dirs] + [f"  {shown_name(name)}" for name in files]
    shown = shown_name(rel)
    display = "./" if rel in ("", ".") else shown if rel.endswith(":") else f"{shown.rstrip('/')}/"  # `docs:` a root
    return Result(f"Listing {display}", "\n".join(lines) if lines else "(empty)")


def _sort_key(name: str) -> tuple[str, str]:
    return (name.casefold(), name)


def in_open_folder(ctx: Caller, path: str) -> str:
    """After `/open <folder>`, a relative path (and "." for none) starts there, as in String (/ls, /grep, /glob)."""
    if ctx.session.cwd_override and not path.startswith("/"):
        return from_folder(ctx, ctx.session.cwd_override, path)
    return path


def from_folder(ctx: Caller, folder: str, path: str) -> str:
    """`path` inside the folder `/open <folder>` entered when it is there, else as given (from the root)."""
    import posixpath

    inside = posixpath.normpath(posixpath.join(folder, path))
    try:
        found = ctx.documents.workspace.stat(inside) is not None
    except StringError:
        found = False
    return inside if found else path
