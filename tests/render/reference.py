"""markdown-it-py as the reference the line scanner is checked against (tests only)."""

from __future__ import annotations

from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin


def reference_parser() -> MarkdownIt:
    return MarkdownIt("commonmark").enable(["table"]).use(front_matter_plugin)


def reference_structure(text: str) -> tuple[list[tuple[int, int, int]], list[tuple[int, int]], int]:
    """(top-level heading (line, end, level)s, fence (start, end)s at any depth, front matter end) from token maps."""
    md = reference_parser()
    headings, fences, front = [], [], 0
    for token in md.parse(text):
        if token.type == "heading_open" and token.level == 0:
            headings.append((token.map[0], token.map[1], int(token.tag[1])))
        elif token.type == "fence":
            fences.append((token.map[0], token.map[1]))
        elif token.type == "front_matter":
            front = token.map[1]
    return headings, fences, front
