"""A reply taller than the screen goes through a pager in the REPL, as pgcli and git do: `$STRINGSH_PAGER`, else
`$PAGER`, else `less -RXF` (colours kept, the page left on screen, no pager at all when it fits); an empty value or
`cat` turns it off. Only for a person at a terminal: the REPL's own replies, never the plain loop, `-c`, `run`,
the daemon or any dialect (none of them calls this module).
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

from rich.console import Console

#: `less` flags: keep colours (-R), leave the page on screen (-X), quit at once when it fits one screen (-F).
LESS_FLAGS = ("-R", "-X", "-F")
#: The variables naming the pager, the first one set wins (git reads GIT_PAGER before PAGER the same way).
PAGER_VARIABLES = ("STRINGSH_PAGER", "PAGER")


def pager_command() -> list[str] | None:
    """The pager to run as an argument list (never through a shell), or None when it is turned off (an empty
    value or `cat`, as git reads its pager) or there is none (no variable set and no `less`)."""
    for name in PAGER_VARIABLES:
        value = os.environ.get(name)
        if value is not None:
            try:
                words = shlex.split(value)
            except ValueError:  # an unbalanced quote: taken as one program's name, which then fails to run
                words = [value]
            return words if words and words != ["cat"] else None
    less = shutil.which("less")
    return [less, *LESS_FLAGS] if less else None


def is_tall(shown: str, rows: int) -> bool:
    """More lines than the terminal has rows under the request's prompt line (the reply has no `re:` line of its
    own: the request stays on screen above it): printed, its top would scroll away."""
    return shown.count("\n") + (not shown.endswith("\n")) > rows - 1


def print_paged(console: Console, text: str, render: Callable[[Console, str], None]) -> bool:
    """Page the reply `text` when it is taller than the screen (`render(console, text)` draws it); False when it
    was not paged (not a terminal, short enough, or no pager), so the caller prints it as usual. When the pager
    cannot be started the reply is printed here, with one line saying why it was not paged."""
    if not (console.is_terminal and sys.stdin.isatty()):
        return False
    command = pager_command()
    if command is None:
        return False
    with console.capture() as captured:
        render(console, text)
    shown = captured.get()
    if not is_tall(shown, console.height):
        return False
    try:
        run_pager(command, shown.encode("utf-8", "replace"))
    except OSError as exc:
        render(console, text)
        console.print(f"stringsh: cannot run the pager {command[0]}: {exc.strerror or exc}", style="dim",
                      markup=False, highlight=False, soft_wrap=True)
    return True


def run_pager(command: list[str], data: bytes) -> None:
    """Feed `data` to the pager and wait until the person leaves it. Ctrl-C belongs to the pager meanwhile (less
    uses it to stop a search): this process only waits, so the pager is never killed with the terminal in its mode."""
    with sigint_waits():
        pager = subprocess.Popen(command, stdin=subprocess.PIPE)  # an argument list: no shell
        assert pager.stdin is not None
        with suppress(BrokenPipeError):  # left (`q`) before reading it all
            pager.stdin.write(data)
        with suppress(BrokenPipeError):
            pager.stdin.close()
        pager.wait()


@contextmanager
def sigint_waits() -> Iterator[None]:
    """SIGINT does nothing here while the block runs (the pager, a child, gets its own: a handler, unlike an
    ignored signal, is not inherited across exec)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, lambda _signum, _frame: None)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
