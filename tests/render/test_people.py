"""Rendering for people: rich markdown in small chunks; no escape codes without colour."""

from __future__ import annotations

from stringsh.render.people import chunks, render_markdown


def test_plain_output_has_no_escape_codes_and_strips_controls() -> None:
    out = render_markdown("# Title\n\nSome *text*\x1b[31m red\x07.\n\n```py\nx = 1\n```\n", color=False, width=60)
    assert "\x1b" not in out and "\x07" not in out
    assert "Title" in out and "x = 1" in out


def test_colour_output_uses_ansi() -> None:
    assert "\x1b[" in render_markdown("# Title\n\n**bold**\n", color=True)


def test_chunks_split_at_blank_lines_outside_fences() -> None:
    text = "\n".join(["para"] * 5 + [""] + ["```"] + [""] * 3 + ["```"] + [""] + ["end"])
    pieces = chunks(text, size=3)
    assert "\n".join(pieces) == text
    assert all(piece.count("```") in (0, 2) for piece in pieces)
    assert len(pieces) >= 2
