"""Arguments of the file-operation commands (/stat /mkdir /mv /cp /rm): known flags, then exactly the paths the
command takes; a path that starts with `-` goes after `--`."""

from __future__ import annotations

from stringsh.commands.context import Context
from stringsh.commands.targets import refuse_unknown_flags, split_dashes
from stringsh.errors import StringError


def parse(ctx: Context, name: str, flags: tuple[str, ...], count: int, usage: str) -> tuple[set[str], list[str]]:
    """(the flags given, the paths); INVALID_PAYLOAD naming an unknown flag or the wrong number of paths."""
    words, literal = split_dashes(ctx.args)
    given = {w for w in words if w in flags}
    words = [w for w in words if w not in flags]
    refuse_unknown_flags(words, name)
    paths = words + literal
    if len(paths) != count:
        raise StringError("INVALID_PAYLOAD", f"Usage: {usage}", "Quote a path that contains spaces.")
    for path in paths:
        if any(c in path for c in "\n\r\t\0"):
            raise StringError("INVALID_PATH", f"Path contains a line break or control character: {path!r}",
                              "Nothing was changed; name files without line breaks or tabs.")
    return given, paths


def forget_seen(ctx: Context, rel: str) -> None:
    """The topic's read record of `rel` and everything under it: the path no longer holds what was read."""
    seen = ctx.session.seen
    for key in [k for k in seen if k == rel or k.startswith(rel + "/")]:
        seen.pop(key, None)
