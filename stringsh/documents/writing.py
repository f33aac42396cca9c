"""Arguments of the commands that write whole files: `/name [--force] path` + body, or `/name path text`."""

from __future__ import annotations

import re

from stringsh.documents.guard import FORCE
from stringsh.errors import StringError
from stringsh.hints import command_word
from stringsh.protocol.request import substitute

#: The first argument of the one-line form, quoted or bare; the rest of the line is the text, kept as typed.
FIRST = re.compile(r"""\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+))(?:\s(.*))?\Z""", re.DOTALL)


def split_target(
    arg_text: str, variables: dict[str, str], body: str | None, name: str, *, allow_force: bool
) -> tuple[str, str, bool]:
    """(path, text, force) from `/name [--force] path` + body, or the one-line `/name [--force] path text`,
    whose text gets a final newline. `arg_text` is the raw argument text (not shell-split)."""
    usage = f"Usage: /{name} path <<EOF … EOF, or /{name} path text"
    rest = substitute(arg_text, variables).strip()
    force = False
    if allow_force and (rest == FORCE or rest.startswith(FORCE + " ")):
        force, rest = True, rest[len(FORCE) :].strip()
    match = FIRST.match(rest) if rest else None
    if match is None:
        raise StringError("INVALID_PAYLOAD", usage, "Give a path, then the content in the body.")
    path = match.group(1) if match.group(1) is not None else (match.group(2) or match.group(3) or "")
    if match.group(3) is not None and path[0] in "'\"":
        raise StringError("INVALID_PAYLOAD", "Cannot parse arguments: No closing quotation.", "Close the quote.")
    if match.group(1) is not None:
        path = re.sub(r"\\(.)", r"\1", path)
    inline = (match.group(4) or "").strip()
    if allow_force and body is not None and inline == FORCE:
        force, inline = True, ""
    if allow_force and body is None and (inline == FORCE or inline.startswith(FORCE + " ")):
        # Written as text, the flag would replace the file with "--force …" and still not force it.
        raise StringError("INVALID_PAYLOAD", f"--force must come before the path in /{name}",
                          f"Put --force before the path: /{name} --force {command_word(path)} <text>")
    if body is not None:
        if inline:
            raise StringError("INVALID_PAYLOAD", usage, "Give the content either on the line or in the body, not both.")
        text = body
    elif inline:
        text = inline + "\n"
    else:
        raise StringError("INVALID_PAYLOAD", usage, "Give the content in the body (after the first line or <<EOF).")
    if "#" in path:
        raise StringError(
            "INVALID_TARGET", f"/{name} takes a whole file: {path}", "Use /edit path#block to replace a block."
        )
    return path, text, force
