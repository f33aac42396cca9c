"""What a command module needs to declare a handler: the `@handler(name)` marker and the help pages.

The metadata (syntax, summary, section, flags) lives in one static table, `stringsh.commands.table`; the marker
only names the function so a test can check that the table and the handlers agree. Nothing here is filled at
import time, so importing one command module never imports the others.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable

    from stringsh.commands.context import Context
    from stringsh.protocol.response import Result

    Handler = Callable[[Context], Result]

H = TypeVar("H")

#: The function attribute `@handler` sets: the command name the table maps to this function.
MARK = "string_command"

#: Sections of the `/help` listing, in order.
SECTIONS = ("Navigation", "Documents", "Editing", "Actions", "State", "Shell", "Help")


def handler(name: str) -> Callable[[H], H]:
    """Mark a function as the handler of command `name`; the table, not this call, describes the command."""

    def mark(function: H) -> H:
        vars(function)[MARK] = name
        return function

    return mark


def read_help_page(page: str) -> str:
    from importlib import resources  # costs ~20 ms at start-up; only help needs it

    return resources.files("stringsh.help").joinpath(f"{page}.md").read_text(encoding="utf-8").strip()

