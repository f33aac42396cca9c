"""`Workspace.edit(path, start_line, end_line, replacement)`: a line range replaced in place, line endings, encoding
and every other byte kept, journaled (revert restores the bytes), guarded and permission-checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from stringsh.errors import StringError
from stringsh.workspace import WholeFile, Workspace
from stringsh.workspace.ops.lines import LineEditRequest, edit_lines, splice_lines
from stringsh.workspace.policy import Policy


@pytest.mark.parametrize(
    ("text", "start", "end", "new", "expected"),
    [
        ("1\n2\n3\n", 2, 2, "two", "1\ntwo\n3\n"),
        ("1\n2\n3\n", 2, 2, "two\n", "1\ntwo\n3\n"),
        ("1\n2\n3\n", 1, 3, "x\ny\nz\nw\n", "x\ny\nz\nw\n"),
        ("1\n2\n3\n", 2, 3, "", "1\n"),
        ("1\n2\n3", 3, 3, "", "1\n2"),  # the file still ends without a line break
        ("1\n2\n3", 3, 3, "c\nd", "1\n2\nc\nd"),
        ("1\r\n2\r\n3\r\n", 2, 2, "a\nb\nc", "1\r\na\r\nb\r\nc\r\n3\r\n"),
        ("1\r\n2\n3\r\n", 1, 3, "a\nb\nc", "a\r\nb\nc\r\n"),  # mixed: each line keeps its ending
        ("1\r2\r", 1, 1, "x\ny", "x\ry\r2\r"),  # a lone \r is a line ending too
        ("only", 1, 1, "a\nb", "a\nb"),
        ("only", 1, 1, "", ""),
        ("a\u2028b\n", 1, 1, "x", "x\n"),  # U+2028 is not a line break in the shared model
    ],
)
def test_splice_lines(text: str, start: int, end: int, new: str, expected: str) -> None:
    assert splice_lines(text, start, end, new) == expected


def test_edit_keeps_bom_and_utf16_and_reverts_byte_for_byte(tmp_path: Path) -> None:
    raw = "\ufeffeins\r\nzwei\r\ndrei\r\n".encode("utf-16-le")
    (tmp_path / "u.txt").write_bytes(raw)
    ws = Workspace(tmp_path)
    outcome = ws.edit("u.txt", 2, 2, "ZWEI\nzwei b\n", topic="t")
    assert (tmp_path / "u.txt").read_bytes() == "\ufeffeins\r\nZWEI\r\nzwei b\r\ndrei\r\n".encode("utf-16-le")
    assert (outcome.rel, outcome.total_lines) == ("u.txt", 4)
    ws.revert(outcome.change_id)
    assert (tmp_path / "u.txt").read_bytes() == raw
    ws.close()


def test_edit_refuses_bad_ranges_a_changed_file_and_a_read_only_root(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(b"1\n2\n")
    ws = Workspace(tmp_path)
    cases = [
        (lambda: ws.edit("a.txt", 3, 3, "x"), "INVALID_TARGET",
         "Line range out of bounds: a.txt:L3 (file has 2 lines)"),
        (lambda: ws.edit("a.txt", 0, 1, "x"), "INVALID_TARGET", "Invalid line range: L0-L1"),
        (lambda: ws.edit("a.txt", 2, 1, "x"), "INVALID_TARGET", "Invalid line range: L2-L1"),
        (lambda: ws.edit("a.txt", 1, 1, "x", guard=WholeFile("0" * 64)), "CONFLICT",
         "Refusing to edit a.txt: it changed since this topic read it."),
        (lambda: ws.edit("nope.txt", 1, 1, "x"), "NOT_FOUND", None),
    ]
    for call, code, message in cases:
        with pytest.raises(StringError) as caught:
            call()
        assert caught.value.code == code
        if message is not None:
            assert caught.value.message == message
    policy = Policy.default(tmp_path)
    read_only = Workspace(tmp_path, policy._replace(roots=(policy.root._replace(mode="read_only"),)))
    for call in (lambda: read_only.edit("a.txt", 1, 1, "x"),
                 lambda: edit_lines(read_only, LineEditRequest("a.txt", 1, 1, "x"))):
        with pytest.raises(StringError) as caught:
            call()
        assert (caught.value.code, caught.value.message) == ("NOT_PERMITTED",
                                                             "write is not allowed: root main is read_only")
    assert (tmp_path / "a.txt").read_bytes() == b"1\n2\n"
    ws.close()
    read_only.close()
