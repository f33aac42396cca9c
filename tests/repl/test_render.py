"""How replies look to people: rendered through a real rich Console into a buffer, with and without colour."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from rich.text import Text

from stringsh.dispatcher import Dispatcher
from stringsh.render.replies import clean, print_reply, reply_renderables, split_reply


def rendered(text: str, *, color: bool = False, width: int = 80) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=color, color_system="standard" if color else None)
    print_reply(console, text)
    return buffer.getvalue()


def test_split_reply_categories() -> None:
    a = split_reply("re: /ls\nListing ./\n---\n  docs/")
    assert (a.message, a.content, a.error) == ("Listing ./", "  docs/", False)
    b = split_reply("re: /write x\nCreated: x (1 bytes, 1 line)")
    assert (b.message, b.content) == ("Created: x (1 bytes, 1 line)", None)
    c = split_reply("re: /nope\nERROR(COMMAND_UNSUPPORTED): Unknown command: /nope\nUse /help")
    assert c.error and c.message.startswith("ERROR(")
    empty = split_reply("re: /open e.md\nOpened e.md\n---")
    assert empty.content == ""


def test_the_repl_leaves_out_the_echo_and_color_output_keeps_it() -> None:
    """In the REPL the request stays on screen after its prompt, so its reply starts with the message; `--color`
    output (no prompt to keep the request) starts with the `re:` line as plain output does."""
    text = "re: /ls\nListing ./\n---\n  docs/"
    repl = io.StringIO()
    print_reply(Console(file=repl, width=40, color_system=None), text, echo=False)
    assert repl.getvalue() == "Listing ./\n" + "─" * 40 + "\n  docs/\n\n"
    assert rendered(text, width=40) == "re: /ls\n" + repl.getvalue()
    error = "re: /x\nERROR(NOT_FOUND): Not found\nNo such folder: x"
    assert [part.plain for part in reply_renderables(error, echo=False)] == [  # type: ignore[union-attr]
        "ERROR(NOT_FOUND): Not found\nNo such folder: x"]


def test_markdown_documents_render_as_markdown() -> None:
    out = rendered("re: /open g.md\nOpened g.md\n---\n# Guide\n\nSome **bold** text.\n\n- one\n- two")
    assert "re: /open g.md" in out and "Opened g.md" in out
    assert "Guide" in out and "# Guide" not in out
    assert "**" not in out and "bold" in out
    assert "• one" in out


def test_heading_ids_are_hidden_from_people_but_not_in_code() -> None:
    out = rendered("re: /open g.md\nOpened g.md\n---\n## Install {#setup}\n\n```\n# keep {#this}\n```\n\n# T []{#t}")
    assert "Install" in out and "{#setup}" not in out and "{#t}" not in out
    assert "# keep {#this}" in out


def test_hint_lines_stay_lines_above_the_document() -> None:
    out = rendered("re: /open g.md\nOpened g.md\n---\n[nav] main — /nav <name>\n[actions] a\n\n# T\n\nx")
    lines = out.splitlines()
    assert "[nav] main — /nav <name>" in lines and "[actions] a" in lines


def test_plain_text_files_and_listings_stay_verbatim() -> None:
    out = rendered("re: /open a.txt\nOpened a.txt\n---\n# not a heading\n  **kept**")
    assert "# not a heading" in out and "  **kept**" in out
    listing = rendered("re: /ls\nListing ./\n---\n  docs/\n  README.md")
    assert "  docs/\n  README.md" in listing


def test_help_pages_render_as_markdown_and_the_command_list_stays_aligned() -> None:
    page = rendered("re: /help ls\nHelp: /ls\n---\n/ls [path]\n\nList a `folder`.\n\n    /ls docs")
    assert "`folder`" not in page and "folder" in page and "/ls docs" in page
    # The command list is markdown too, its rows a grid whose cells wrap on their own
    listing = "## String Commands\n\n### Navigation\n/back      Go back\n/ls [path]  List"
    out = rendered(f"re: /help\nString Commands\n---\n{listing}")
    assert "##" not in out
    assert "\nNavigation " in out and "\n/back       Go back\n/ls [path]  List" in out
    errors = "Every error.\n\nINVALID_TARGET       The command cannot act on that target (nothing open, not a dir)."
    out = rendered(f"re: /help errors\nError Codes\n---\n{errors}\nNOT_FOUND            Missing.", width=60)
    lines = [line.rstrip() for line in out.splitlines()]
    at = lines.index("INVALID_TARGET  The command cannot act on that target")
    assert lines[at + 1] == "                (nothing open, not a dir)."  # wrapped inside its cell, not at column 0


def test_edit_view_keeps_its_numbers_dimmed() -> None:
    text = "re: /edit a.md\n[editing: a.md]\n---\n1 | # A\n2 | \n3 | x | y\n\n(3 lines)"
    assert "1 | # A\n2 | \n3 | x | y\n\n(3 lines)" in rendered(text)
    numbered = reply_renderables(text)[-1]
    assert [numbered.plain[span.start : span.end] for span in numbered.spans] == ["1 | ", "2 | ", "3 | "]


def test_bash_output_is_verbatim() -> None:
    out = rendered("re: !ls\nexit: 0 | cwd: /w\n---\n# raw *output*\n[x](y)")
    assert "exit: 0 | cwd: /w" in out and "# raw *output*\n[x](y)" in out


def test_errors_are_red_and_hints_yellow() -> None:
    parts = reply_renderables("re: /x\nERROR(NOT_FOUND): Not found\nNo such folder: x")
    error = parts[1]
    assert isinstance(error, Text)
    assert str(error.style) == "bold red"
    assert any(str(span.style) == "yellow" for span in error.spans)
    coloured = rendered("re: /x\nERROR(NOT_FOUND): Not found", color=True)
    assert "\x1b[1;31mERROR(NOT_FOUND): Not found" in coloured


def test_failed_shell_commands_show_their_status_in_red() -> None:
    coloured = rendered("re: !false\nexit: 1 | cwd: /w\n---\n(no output)", color=True)
    assert "\x1b[1;31mexit: 1" in coloured


def test_terminal_controls_in_content_are_removed() -> None:
    hostile = "re: /open a.txt\nOpened a.txt\n---\nok\x1b[2J\x1b]0;title\x07\x1b[31mred\x07\x08\x9b2J end"
    out = rendered(hostile)
    assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out and "\x08" not in out
    assert "ok" in out and "red" in out and "end" in out
    assert clean("a\r\nb\tc\x00") == "a\nb\tc"


def test_no_colour_output_has_no_escape_bytes() -> None:
    out = rendered("re: /open g.md\nOpened g.md\n---\n# Title\n\n`code` and *em*\n\n```py\nx = 1\n```")
    assert "\x1b" not in out


def test_huge_documents_are_shown_as_text() -> None:
    body = "# Big\n\n" + "word " * 60000
    out = rendered(f"re: /open big.md\nOpened big.md\n---\n{body}", width=200)
    assert "too large to render" in out and "# Big" in out


@pytest.mark.parametrize(
    "text", ["", "re: /x", "re: /x\n", "re: /x\n---", "\n\n\n", "re: /x\nERROR(", "re: !x\nexit: 1 | cwd: "]
)
def test_malformed_replies_still_render(text: str) -> None:
    rendered(text)


def test_every_reply_of_a_real_session_renders(dispatcher: Dispatcher, ws) -> None:  # type: ignore[no-untyped-def]
    (ws / "g.md").write_text("# G\n\n## Part\n\ntext\n")
    for request in ["/ls", "/open g.md#part", "/info", "/help", "/help errors", "/nope", "/write n.md\nx", "/undo"]:
        reply = dispatcher.execute(request)
        out = rendered(reply.text)
        assert out.startswith(f"re: {request.splitlines()[0]}")
