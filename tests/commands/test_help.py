"""/help: listing generated from the command table, pages, bash and errors; the table matches the handlers."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from types import FunctionType, MappingProxyType

import pytest

import stringsh.commands as package
from stringsh.commands.registry import MARK
from stringsh.commands.table import COMMANDS, PACKAGE
from stringsh.errors import ERROR_CODES


def test_listing_is_generated_from_the_table(dispatcher) -> None:
    text = dispatcher.execute("/help").text
    assert text.startswith("re: /help\nString Commands\n---\n## String Commands\n\n### ")
    for cmd in COMMANDS.values():
        if not cmd.hidden:
            assert any(line.startswith(cmd.syntax) and line.endswith(cmd.summary) for line in text.splitlines()), (
                cmd.name
            )


def test_every_command_has_a_help_page(dispatcher) -> None:
    for cmd in COMMANDS.values():
        assert cmd.help_text().strip(), cmd.name


def test_command_page(dispatcher) -> None:
    reply = dispatcher.execute("/help ls")
    assert reply.text.startswith("re: /help ls\nHelp: /ls\n---\n/ls [path]\n\nList a folder of the workspace.")
    assert dispatcher.execute("/help /LS").text.split("\n", 1)[1] == reply.text.split("\n", 1)[1]


def test_help_bash_is_the_bash_session_page(dispatcher) -> None:
    assert dispatcher.execute("/help bash").text.startswith("re: /help bash\nBash Session\n---\n")


def test_help_errors_lists_every_code(dispatcher) -> None:
    text = dispatcher.execute("/help errors").text
    assert text.startswith("re: /help errors\nError Codes\n---\n")
    for code in ERROR_CODES:
        assert f"\n{code} " in text


def test_help_for_an_unknown_command(dispatcher) -> None:
    assert dispatcher.execute("/help frobnicate").text == (
        "re: /help frobnicate\nERROR(NOT_FOUND): No help for: frobnicate\nUse /help to list every command."
    )


def test_unknown_command_and_non_command(dispatcher) -> None:
    assert dispatcher.execute("/x").text == (
        "re: /x\nERROR(COMMAND_UNSUPPORTED): Unknown command: /x\nUse /help to see available commands."
    )
    assert dispatcher.execute("hello there").text == (
        "re: hello there\nERROR(COMMAND_UNSUPPORTED): Commands must start with /.\nUse /help for details."
    )


def marked_handlers() -> dict[str, tuple[str, str]]:
    """command name -> (module, function) of every function in stringsh.commands marked with `@handler`."""
    found: dict[str, tuple[str, str]] = {}
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{PACKAGE}.{info.name}")
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if function.__module__ == module.__name__ and MARK in vars(function):
                command = vars(function)[MARK]
                assert command not in found, f"/{command} is marked twice"
                found[command] = (info.name, name)
    return found


def test_the_table_matches_the_handlers() -> None:
    """Every spec names a function marked with its name, and every marked function has a spec."""
    marked = marked_handlers()
    assert {name: (spec.module, spec.function) for name, spec in COMMANDS.items()} == marked
    for name, spec in COMMANDS.items():
        function = spec.handler()
        assert isinstance(function, FunctionType) and vars(function)[MARK] == name


def test_every_spec_has_its_help_page_and_flags_from_its_syntax() -> None:
    for spec in COMMANDS.values():
        assert spec.help_text().strip(), spec.name
        for flag in spec.flags:
            assert flag in spec.syntax, (spec.name, flag)


def test_the_table_is_immutable() -> None:
    assert isinstance(COMMANDS, MappingProxyType)
    with pytest.raises(TypeError):
        COMMANDS["x"] = COMMANDS["ls"]  # type: ignore[index]
    with pytest.raises(AttributeError):
        COMMANDS["ls"].summary = "x"  # type: ignore[misc]
