"""/help: listing generated from the registry, pages, bash and errors."""

from __future__ import annotations

from stringsh.commands.registry import REGISTRY
from stringsh.errors import ERROR_CODES


def test_listing_is_generated_from_the_registry(dispatcher) -> None:
    text = dispatcher.execute("/help").text
    assert text.startswith("re: /help\nString Commands\n---\n## String Commands\n\n### ")
    for cmd in REGISTRY.values():
        if not cmd.hidden:
            assert any(line.startswith(cmd.syntax) and line.endswith(cmd.summary) for line in text.splitlines()), (
                cmd.name
            )


def test_every_command_has_a_help_page(dispatcher) -> None:
    for cmd in REGISTRY.values():
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
        "re: hello there\nERROR(COMMAND_UNSUPPORTED): Commands must start with /. Use /help for details."
    )
