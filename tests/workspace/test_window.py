"""A window of a file too large to read whole (ops/window.py): exactly the lines the shared line model gives
(`\\r\\n`, `\\r` and `\\n` each end a line), and the right count, whatever the chunk boundaries, including a
`\\r\\n` split between two chunks and a window that ends inside a chunk (the rest of it is counted, not split)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from stringsh.workspace import Workspace
from stringsh.workspace.ops import window
from stringsh.workspace.ops.window import WindowRequest

PIECES = st.lists(st.sampled_from(["a", "bc", "\n", "\r", "\r\n", "é", "long line "]), max_size=60)


def model(text: str) -> list[str]:
    """The lines of `text` by the shared line model: a break ends a line; a last line without one still counts."""
    lines = re.split(r"\r\n|\r|\n", text)
    return lines[:-1] if lines[-1] == "" else lines


@given(pieces=PIECES, start=st.integers(0, 30), length=st.integers(1, 30), chunk=st.sampled_from([1, 2, 3, 7, 64]))
def test_a_window_is_the_model_s_lines_whatever_the_chunks(tmp_path_factory: pytest.TempPathFactory,
                                                           pieces: list[str], start: int, length: int,
                                                           chunk: int) -> None:
    root = tmp_path_factory.mktemp("ws")
    text = "".join(pieces)
    (root / "big.txt").write_bytes(text.encode())
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(window, "CHUNK", chunk)
        engine = Workspace(root)
        try:
            got = engine.read_window(WindowRequest("big.txt", start, start + length, 10_000))
        finally:
            engine.close()
    lines = model(text)
    assert got.lines == lines[start:start + length]
    assert got.total_lines == len(lines)
    assert got.next_line == (start + length if start + length < len(lines) else None)
    assert got.complete and got.scanned == len(text.encode())


def test_the_window_s_own_chunk_is_counted_past_the_window(ws: Path) -> None:
    (ws / "big.txt").write_bytes(b"one\r\ntwo\rthree\nfour\r\n\r\nsix")
    engine = Workspace(ws)
    try:
        got = engine.read_window(WindowRequest("big.txt", 1, 3, 10_000))
    finally:
        engine.close()
    assert (got.lines, got.total_lines, got.next_line) == (["two", "three"], 6, 3)
