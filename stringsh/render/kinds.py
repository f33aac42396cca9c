"""Which files are markdown documents: one suffix list for `/open`, `/edit`, the views and the people's REPL.

A module of its own, free of imports, so a front end can ask before it needs the block index.
"""

from __future__ import annotations

MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdown", ".mkd", ".mdx", ".sfmd")


def is_markdown(path: str) -> bool:
    """Whether a path (or URL path) names a markdown document, by suffix, case-insensitively."""
    return path.lower().endswith(MARKDOWN_SUFFIXES)
