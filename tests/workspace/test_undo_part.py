"""undopart.take_back: one change's lines put back in a file later changes edited elsewhere, every other byte kept."""

from __future__ import annotations

import pytest

from stringsh.workspace.ops.undopart import take_back

CASES = {
    # name: (before the change, after it, the file now, what the undo leaves)
    "replaced line, another changed below": (b"a\nb\nc\n", b"a\nB\nc\n", b"a\nB\nC\n", b"a\nb\nC\n"),
    "lines removed, lines added above since": (b"a\nb\nc\nd\n", b"a\nd\n", b"x\ny\na\nd\n", b"x\ny\na\nb\nc\nd\n"),
    "lines added, one changed above since": (b"a\nb\n", b"a\nnew\nnew2\nb\n", b"A\nnew\nnew2\nb\n", b"A\nb\n"),
    "crlf and a missing final newline kept": (b"a\r\nb\r\nc", b"a\r\nB\r\nc", b"a\r\nB\r\nC", b"a\r\nb\r\nC"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_change_alone_is_taken_back(case: str) -> None:
    prev, new, now, expected = CASES[case]
    assert take_back(prev, new, now) == expected


def test_lines_changed_again_or_not_line_text_cannot_be_taken_back_alone() -> None:
    assert take_back(b"a\nb\nc\n", b"a\nB\nc\n", b"a\nBB\nc\n") is None
    assert take_back(b"a\nb\nc\n", b"a\nB\nc\n", b"a\nc\n") is None
    assert take_back("a\nb\n".encode("utf-16"), "a\nB\n".encode("utf-16"), "A\nB\n".encode("utf-16")) is None
