"""/info: what this topic has open and knows."""

from __future__ import annotations

from stringsh.commands.context import Context
from stringsh.commands.registry import command
from stringsh.protocol.response import Result

KEY_WIDTH = 11


def info_line(key: str, value: str) -> str:
    """`key:` padded so values line up at column 11, as String prints them."""
    return f"{key + ':':<{KEY_WIDTH}}{value}"


def variables_summary(variables: dict[str, str]) -> str:
    if not variables:
        return "(none)"
    return ", ".join(
        f'{{{k}}}="{v}"' if "\n" not in v else f"{{{k}}}=({v.count(chr(10)) + 1} lines)" for k, v in variables.items()
    )


@command("info", syntax="/info", summary="Show the topic's document, folder, history and variables", section="State")
def info(ctx: Context) -> Result:
    session = ctx.session
    lines = [info_line("topic", session.topic), info_line("root", str(ctx.dispatcher.root)), info_line("cwd", "./")]
    if session.document is None:
        lines.append(info_line("file", "(none open)"))
    else:
        lines.append(info_line("file", getattr(session.document, "path", str(session.document))))
    count = len(session.history)
    lines.append(info_line("history", f"{count} entr{'y' if count == 1 else 'ies'}"))
    lines.append(info_line("vars", variables_summary(session.variables)))
    return Result("Session info", "\n".join(lines))
