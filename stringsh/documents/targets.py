"""Arguments that name documents: `[target] [--from N]` and `path[#block]` (the open document when left out)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.errors import StringError

if TYPE_CHECKING:
    from stringsh.documents.service import DocumentService


def split_from(args: list[str], name: str) -> tuple[str | None, int]:
    """(target, 0-based start line) from `/name [target] [--from N]`; `args` is not changed."""
    args = list(args)
    start = 0
    if "--from" in args:
        i = args.index("--from")
        value = args[i + 1] if i + 1 < len(args) else ""
        if not value.isdigit() or int(value) < 1:
            raise StringError("INVALID_PAYLOAD", f"--from needs a line number (1 or more), got: {value or '(nothing)'}")
        start = int(value) - 1
        del args[i : i + 2]
    if len(args) > 1:
        raise StringError("INVALID_PAYLOAD", f"/{name} takes one target, got {len(args)}: {' '.join(args)}",
                          "Quote a path that contains spaces.")
    return (args[0] if args else None), start


def edit_target(documents: DocumentService, args: list[str], name: str) -> tuple[str, str | None, int]:
    """(path, block, start) from `/name path[#block]`, `/name #block` or `/name` (the open document)."""
    target, start = split_from(args, name)
    if target is None or target.startswith("#"):
        view = documents.current() if target is not None or documents.current_or_none() is not None else None
        if view is None:
            raise StringError("INVALID_PAYLOAD", f"Usage: /{name} path[#block]", "Or open a document first.")
        block = target[1:] if target else view.block
        return view.path, block or None, start
    path, _, block = target.partition("#")
    if not path:
        raise StringError("INVALID_PAYLOAD", f"Usage: /{name} path[#block]")
    return path, block or None, start
