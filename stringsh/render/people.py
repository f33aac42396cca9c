"""Rendering for people (REPL, `--color`): rich markdown, chunk by chunk, never a whole huge file at once.

The input is the plain rendering, already cut to the line budget, so its size is bounded; it is still split at
blank lines outside fences into small chunks because rich costs about 5 s per MB.
"""

from __future__ import annotations

import io
import re

from stringsh.render.scan import fenced_lines, scan
from stringsh.workspace import clean_text

CHUNK_LINES = 80
#: `[Label][@id]`, the plain rendering's link with its shortcut (agents follow it with `/open @id`).
SHORTCUT_LINK = re.compile(r"\[(?P<label>[^\[\]\n]+)\]\[(?P<id>@[A-Za-z0-9][\w.-]*)\]")
#: Styles for links in people's markdown: the label reads as a link, the shortcut stays discreet.
LINK_THEME = {"markdown.link": "underline bright_blue", "markdown.link_url": "dim"}


def people_links(markdown: str) -> str:
    """`[#892][@link-106]` -> `[#892](@link-106)`: rich then shows `#892 (@link-106)`, the label as a link and the
    shortcut dimmed, instead of the brackets. Code (fences, backtick spans) is left as it is."""
    if "][@" not in markdown:
        return markdown
    lines = markdown.split("\n")
    fenced = fenced_lines(len(lines), scan(lines).fences)
    for number, line in enumerate(lines):
        if fenced[number] or "][@" not in line:
            continue
        parts = line.split("`")
        for index in range(0, len(parts), 2):  # outside backtick spans
            parts[index] = SHORTCUT_LINK.sub(r"[\g<label>](\g<id>)", parts[index])
        lines[number] = "`".join(parts)
    return "\n".join(lines)


def chunks(markdown: str, size: int = CHUNK_LINES) -> list[str]:
    """Split at blank lines outside fenced code so each piece renders on its own."""
    pieces: list[str] = []
    current: list[str] = []
    lines = markdown.split("\n")
    fenced = fenced_lines(len(lines), scan(lines).fences)
    for number, line in enumerate(lines):
        current.append(line)
        if not fenced[number] and not line.strip() and len(current) >= size:
            pieces.append("\n".join(current))
            current = []
    if current:
        pieces.append("\n".join(current))
    return pieces


def render_markdown(markdown: str, *, width: int = 100, color: bool = True) -> str:
    """The text rich prints for a markdown rendering (ANSI colours when `color`)."""
    from rich.console import Console
    from rich.markdown import Markdown
    from rich.theme import Theme

    buffer = io.StringIO()
    console = Console(
        file=buffer, width=width, force_terminal=color, color_system="standard" if color else None, emoji=False,
        highlight=False, soft_wrap=False, theme=Theme(LINK_THEME),
    )
    for piece in chunks(people_links(clean_text(markdown))):
        console.print(Markdown(piece, hyperlinks=False))
    return buffer.getvalue()
