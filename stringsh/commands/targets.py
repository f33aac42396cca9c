"""Arguments that name documents: `[target] [--from N]` and `path[#block]` (the open document when left out)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.errors import StringError

if TYPE_CHECKING:
    from stringsh.documents.service import DocumentService


def split_from(args: list[str], name: str) -> tuple[str | None, int]:
    """(target, 0-based start line) from `/name [target] [--from N]`; `args` is not changed.

    A word after `--` is always a target, so a path that starts with `-` can still be named."""
    args, literal = split_dashes(args)
    start = 0
    if "--from" in args:
        i = args.index("--from")
        value = args[i + 1] if i + 1 < len(args) else ""
        if not value.isdigit() or int(value) < 1:
            raise StringError("INVALID_PAYLOAD", f"--from needs a line number (1 or more), got: {value or '(nothing)'}")
        start = int(value) - 1
        del args[i : i + 2]
    refuse_unknown_flags(args, name)
    args += literal
    if len(args) > 1:
        raise StringError("INVALID_PAYLOAD", f"/{name} takes one target, got {len(args)}: {' '.join(args)}",
                          "Quote a path that contains spaces.")
    return (args[0] if args else None), start


def split_dashes(args: list[str]) -> tuple[list[str], list[str]]:
    """(words before `--`, words after it): the latter are never flags."""
    if "--" not in args:
        return list(args), []
    i = args.index("--")
    return list(args[:i]), list(args[i + 1 :])


def refuse_unknown_flags(args: list[str], name: str, flags: tuple[str, ...] | None = None) -> None:
    """Name the first word that looks like a flag, rather than count it as a second target; `flags` defaults to the
    command table's."""
    unknown = next((a for a in args if a.startswith("-") and a != "-"), None)
    if unknown is None:
        return
    if flags is None:
        from stringsh.commands.table import COMMANDS  # a static table: no handler modules load

        spec = COMMANDS.get(name)
        flags = spec.flags if spec is not None else ()
    known = f"Flags of /{name}: {', '.join(flags)}." if flags else f"/{name} takes no flags."
    from stringsh.suggest import did_you_mean, with_suggestion  # (only a reply to an unknown flag suggests)

    raise StringError("INVALID_PAYLOAD", f"Unknown flag for /{name}: {unknown}",
                      with_suggestion(f"{known} A path that starts with - goes after --: /{name} -- {unknown}",
                                      did_you_mean(unknown.partition("=")[0], flags)))


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
