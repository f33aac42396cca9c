"""/write: create or replace a whole file, guarded against overwriting content this topic has not read."""

from __future__ import annotations

import re

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.errors import StringError
from stringsh.protocol.request import substitute
from stringsh.protocol.response import Result
from stringsh.workspace.seen import is_seen_unchanged, mark_seen, seen_sha256

#: The first argument of the one-line form, quoted or bare; the rest of the line is the text, kept as typed.
FIRST = re.compile(r"""\s*(?:"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+))(?:\s(.*))?\Z""", re.DOTALL)
FORCE = "--force"


def split_target(ctx: Context, name: str, *, allow_force: bool) -> tuple[str, str, bool]:
    """(path, text, force) from `/name [--force] path` + body, or the one-line `/name [--force] path text`,
    whose text gets a final newline."""
    usage = f"Usage: /{name} path <<EOF … EOF, or /{name} path text"
    rest = substitute(ctx.arg_text, ctx.session.variables).strip()  # raw: the text is not shell-split
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
    if allow_force and ctx.body is not None and inline == FORCE:
        force, inline = True, ""
    if ctx.body is not None:
        if inline:
            raise StringError("INVALID_PAYLOAD", usage, "Give the content either on the line or in the body, not both.")
        text = ctx.body
    elif inline:
        text = inline + "\n"
    else:
        raise StringError("INVALID_PAYLOAD", usage, "Give the content in the body (after the first line or <<EOF).")
    if "#" in path:
        raise StringError(
            "INVALID_TARGET", f"/{name} takes a whole file: {path}", "Use /edit path#block to replace a block."
        )
    return path, text, force


@handler("write")
def write(ctx: Context) -> Result:
    path, text, force = split_target(ctx, "write", allow_force=True)
    workspace = ctx.dispatcher.workspace
    seen = ctx.session.seen
    rel = workspace.relative(path)
    expected = None
    info = workspace.stat(path)
    if info is not None and info.is_dir:
        raise StringError("INVALID_TARGET", f"Is a directory: {rel}", f"Use /ls {rel}")
    if info is not None and not force:
        if seen_sha256(seen, workspace, path) is None:
            raise StringError(
                "CONFLICT",
                f"Refusing to overwrite existing file not read in this topic: {rel}",
                f"Run /open {rel} or /edit {rel} first, then retry. "
                "Use --force only when you intend to replace the whole file.",
            )
        if not is_seen_unchanged(seen, workspace, path):
            raise StringError(
                "CONFLICT",
                f"Refusing to overwrite {rel}: it changed since this topic read it.",
                f"Run /open {rel} or /edit {rel} again, then retry. "
                "Use --force only when you intend to replace the whole file.",
            )
        expected = seen_sha256(seen, workspace, path)
    elif info is None and not force:
        expected = ""  # a file that appears before the write is not overwritten unread either
    outcome = workspace.write_text(path, text, topic=ctx.session.topic, expected_sha256=expected)
    mark_seen(seen, workspace, path, outcome.sha256)
    verb = "Created:" if outcome.created else "Written:"
    return Result(f"{verb} {rel} ({outcome.size} bytes, {outcome.lines} lines)")
