"""Rendering for people (REPL, `--color`): rich markdown, chunk by chunk, never a whole huge file at once.

The input is the plain rendering, already cut to the line budget, so its size is bounded; it is still split at
blank lines outside fences into small chunks because rich costs about 5 s per MB.
"""

from __future__ import annotations

import io
import re

CHUNK_LINES = 80
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def chunks(markdown: str, size: int = CHUNK_LINES) -> list[str]:
    """Split at blank lines outside fenced code so each piece renders on its own."""
    pieces: list[str] = []
    current: list[str] = []
    fence = ""
    for line in markdown.split("\n"):
        match = _FENCE.match(line)
        if match and (not fence or match.group(1).startswith(fence)):
            fence = "" if fence else match.group(1)[0] * 3
        current.append(line)
        if not fence and not line.strip() and len(current) >= size:
            pieces.append("\n".join(current))
            current = []
    if current:
        pieces.append("\n".join(current))
    return pieces


def render_markdown(markdown: str, *, width: int = 100, color: bool = True) -> str:
    """The text rich prints for a markdown rendering (ANSI colours when `color`)."""
    from rich.console import Console
    from rich.markdown import Markdown

    buffer = io.StringIO()
    console = Console(
        file=buffer, width=width, force_terminal=color, color_system="standard" if color else None, emoji=False,
        highlight=False, soft_wrap=False,
    )
    for piece in chunks(_CONTROL.sub("", markdown)):
        console.print(Markdown(piece, hyperlinks=False))
    return buffer.getvalue()
