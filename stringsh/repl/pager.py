"""Long help in the REPL goes through a pager, as pgcli does: `$PAGER` when set, else `less -RXF` (colours kept,
the page left on screen, no pager at all when it fits). Only for a person at a terminal: the REPL's own replies,
never `-c`, `run`, the daemon or any dialect.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys

from rich.console import Console

from stringsh.render.helpwrap import is_help_reply

#: `less` flags: keep colours (-R), leave the page on screen (-X), quit at once when it fits one screen (-F).
LESS_FLAGS = ("-R", "-X", "-F")


def pager_command() -> list[str] | None:
    """The pager to run as an argument list (never through a shell), or None when there is none."""
    configured = shlex.split(os.environ.get("PAGER", "")) if os.environ.get("PAGER", "").strip() else []
    if configured:
        return configured
    less = shutil.which("less")
    return [less, *LESS_FLAGS] if less else None


def print_paged(console: Console, text: str, render: object) -> bool:
    """Page a help reply `text` taller than the screen (`render(console, text)` draws it); False when it was not
    paged (not help, not a terminal, short enough, or no pager), so the caller prints it as usual."""
    if not (is_help_reply(text) and console.is_terminal and sys.stdin.isatty()):
        return False
    command = pager_command()
    if command is None:
        return False
    with console.capture() as captured:
        render(console, text)  # type: ignore[operator]
    shown = captured.get()
    if shown.count("\n") < console.height - 1:
        return False
    try:
        subprocess.run(command, input=shown.encode("utf-8", "replace"), check=False)
    except OSError:
        return False
    return True
