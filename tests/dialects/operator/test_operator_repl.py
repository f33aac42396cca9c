"""An OPERATOR_CMD block typed (or pasted) into the REPL in a real pty: the person sees the diff and answers y/N
at the prompt; declined writes nothing, accepted writes, and /undo in the same REPL takes the change back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.dialects.operator.operator_support import b64
from tests.repl.harness import Terminal

ENTER = "\r"
LINES = ["OPERATOR_CMD", "version: 1", "id: w1", "action: fs.write", "path: notes.md",
         "content_b64: " + b64("first line\nsecond line\n"), "END_OPERATOR_CMD"]


@pytest.fixture
def term(ws: Path, tmp_path: Path) -> Iterator[Terminal]:
    terminal = Terminal([], ws, {"STRINGSH_HISTORY": str(tmp_path / "history"), "HOME": str(tmp_path)})
    try:
        terminal.wait_for(lambda screen: "Ctrl-D quit" in screen)
        yield terminal
    finally:
        terminal.close()


def send_block(term: Terminal) -> None:
    for line in LINES:
        term.send(line + ENTER)
        term.wait_for(lambda screen, line=line: line[:40] in screen)


def test_repl_confirms_with_the_diff_declined_then_accepted_then_undone(term: Terminal, ws: Path) -> None:
    send_block(term)
    term.wait_transcript(b"Apply this change? [y/N]")
    screen = term.wait_for("Apply this change? [y/N]")
    assert "+first line" in screen and "+second line" in screen
    term.send("n" + ENTER)
    term.wait_for("summary: not confirmed: declined by the user; nothing was written")
    assert not (ws / "notes.md").exists()
    term.wait_for(lambda screen: screen.splitlines()[-1].startswith(" main "))
    send_block(term)
    term.wait_for_transcript_count(b"Apply this change? [y/N]", 2)
    term.send("y" + ENTER)
    term.wait_for("summary: Wrote file")
    assert (ws / "notes.md").read_bytes() == b"first line\nsecond line\n"
    term.send("/undo" + ENTER)
    term.wait_for("Undo: deleted notes.md (was newly created)")
    assert not (ws / "notes.md").exists()
