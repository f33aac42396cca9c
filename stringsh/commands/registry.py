"""The command registry: one decorator names a command, its syntax, summary, section and help page.

Handlers take a Context and return a Result or raise StringError; help, completion and listings read this table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from stringsh.protocol.response import Result

if TYPE_CHECKING:
    from stringsh.commands.context import Context

Handler = Callable[["Context"], Result]

#: Sections of the `/help` listing, in order.
SECTIONS = ("Navigation", "Documents", "Editing", "Actions", "State", "Shell", "Help")


@dataclass(frozen=True)
class Command:
    name: str
    handler: Handler
    syntax: str
    summary: str
    section: str
    help_page: str
    raw: bool = False
    hidden: bool = False

    def help_text(self) -> str:
        """The command's help page, shipped as package data."""
        return read_help_page(self.help_page)


REGISTRY: dict[str, Command] = {}


def command(
    name: str,
    *,
    syntax: str,
    summary: str,
    section: str,
    help_page: str | None = None,
    raw: bool = False,
    hidden: bool = False,
) -> Callable[[Handler], Handler]:
    """Register a handler. `raw` commands get their argument text unsplit and unsubstituted."""
    if section not in SECTIONS:
        raise ValueError(f"unknown help section {section!r} for /{name}")

    def decorate(handler: Handler) -> Handler:
        if name in REGISTRY:
            raise ValueError(f"command /{name} registered twice")
        REGISTRY[name] = Command(name, handler, syntax, summary, section, help_page or name, raw, hidden)
        return handler

    return decorate


def read_help_page(page: str) -> str:
    from importlib import resources  # costs ~20 ms at start-up; only help needs it

    return resources.files("stringsh.help").joinpath(f"{page}.md").read_text(encoding="utf-8").strip()


def raw_names() -> frozenset[str]:
    return frozenset(name for name, cmd in REGISTRY.items() if cmd.raw)


def load_commands() -> dict[str, Command]:
    """Import every module of `stringsh.commands` once so their decorators fill the registry."""
    import importlib
    import pkgutil

    import stringsh.commands as package

    for module in pkgutil.iter_modules(package.__path__):
        if module.name not in {"registry", "context"}:
            importlib.import_module(f"stringsh.commands.{module.name}")
    return REGISTRY
