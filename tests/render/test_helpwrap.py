"""Help replies wrapped to the terminal for `-c`/`run` (COLUMNS), and left as sent when nobody's terminal is
known (a pipe): columns continue under their text, prose is reflowed, code is never wrapped."""

from __future__ import annotations

from pathlib import Path

from stringsh.render.helpwrap import wrap_help
from tests.conftest import run_stringsh


def test_wrap_keeps_code_and_hangs_columns_and_items() -> None:
    text = (
        "re: /help x\nHelp: /x\n---\n"
        "/x [--a] [--b]  " + "word " * 20 + "\n\n"
        "- an item " + "that goes on " * 8 + "\n\n"
        "    /x --a " + "code " * 20 + "\n"
        "```\n" + "fenced " * 15 + "\n```"
    )
    assert wrap_help(text, 60) == (
        "re: /help x\nHelp: /x\n---\n"
        "/x [--a] [--b]  word word word word word word word word word\n"
        "                word word word word word word word word word\n"
        "                word word\n\n"
        "- an item that goes on that goes on that goes on that goes\n"
        "  on that goes on that goes on that goes on that goes on\n\n"
        "    /x --a " + "code " * 20 + "\n"
        "```\n" + "fenced " * 15 + "\n```"
    )


def test_c_wraps_help_to_columns_and_a_pipe_gets_it_as_sent(ws: Path) -> None:
    wide = run_stringsh(["-c", "/help edit"], ws).stdout.decode()
    narrow = run_stringsh(["-c", "/help edit"], ws, env={"COLUMNS": "60"}).stdout.decode()
    assert max(len(line) for line in wide.split("\n")) > 100  # a pipe: the text every dialect sends
    assert all(len(line) <= 60 for line in narrow.split("\n") if not line.startswith("    "))
    assert narrow.split() == wide.split()  # the same words, only the line breaks moved
