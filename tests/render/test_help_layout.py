"""`/help` as a person sees it at any width: the title once, the syntax column no wider than two fifths of the
screen, a syntax too long for it on a line of its own broken only between its bracketed groups, and at a width
where descriptions would be squeezed below a readable column, every row stacked (its description under it)."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from rich.console import Console

from stringsh.dispatcher import Dispatcher
from stringsh.render.helpview import MIN_TEXT, STACK_INDENT
from stringsh.render.replies import print_reply


def shown(ws: Path, request: str, width: int) -> tuple[str, str]:
    """(the wire reply, the screen a person sees at `width`)."""
    dispatcher = Dispatcher(ws, no_sandbox=True)
    try:
        reply = dispatcher.execute(request).text
    finally:
        dispatcher.close()
    buffer = io.StringIO()
    print_reply(Console(file=buffer, width=width, color_system=None, no_color=True), reply)
    return reply, "\n".join(line.rstrip() for line in buffer.getvalue().split("\n"))


def syntaxes(reply: str) -> list[str]:
    """Each command row's syntax, as the wire text aligns it."""
    return [match.group(1) for match in re.finditer(r"^(/\S.*?\S)  +\S.*$", reply, re.M)]


@pytest.mark.parametrize("width", [40, 60, 80, 120])
def test_the_title_shows_once(ws: Path, width: int) -> None:
    reply, screen = shown(ws, "/help", width)
    assert reply.count("String Commands") == 2  # the wire keeps String's heading under the message
    assert screen.count("String Commands") == 1


@pytest.mark.parametrize("width", [40, 60, 80, 120])
def test_a_syntax_breaks_only_between_its_bracketed_groups(ws: Path, width: int) -> None:
    reply, screen = shown(ws, "/help", width)
    for line in screen.split("\n"):
        if line.startswith("/") or re.match(r"^  [^ ]", line):  # a syntax's first line, or its continuation
            term = re.split(r" {2,}", line.strip())[0]
            assert term.count("[") == term.count("]"), line
    joined = re.sub(r"\n  (?=\S)", " ", screen)
    assert all(syntax in joined for syntax in syntaxes(reply))


@pytest.mark.parametrize("width", [60, 80, 120])
def test_descriptions_keep_a_readable_column(ws: Path, width: int) -> None:
    _reply, screen = shown(ws, "/help", width)
    column = re.search(r"^/back( +)Go back", screen, re.M)
    assert column is not None, screen
    start = len("/back") + len(column.group(1))
    assert start <= width * 2 // 5 + 2 and width - start >= MIN_TEXT


def test_a_narrow_screen_stacks_every_row(ws: Path) -> None:
    _reply, screen = shown(ws, "/help", 40)
    lines = screen.split("\n")
    back = lines.index("/back")
    assert lines[back + 1] == " " * STACK_INDENT + "Go back to the previous document"
    assert all(len(line) <= 40 for line in lines)
