"""Plain `[label](url)` links outside code, for auto-shortcuts and the nav scaffold.

Shortcuts `[@id Label](href)` and menu lines `[!nav:name](path)` come from the document index
(`stringsh.render.index`), which knows CommonMark's code blocks; String skips fenced code, and so does this.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

FENCE = re.compile(r"^(`{3,}|~{3,})(.*)$")
#: An ordinary `[label](url)`: neither a shortcut `[@…]`, a directive `[!…]`, nor an image `![…]`.
PLAIN_LINK = re.compile(r"(?<!!)\[([^\[\]@!][^\[\]]*+)\]\(([^()\s]++)\)")
INLINE_CODE = re.compile(r"`[^`\n]+`")


def prose_lines(source: str) -> Iterator[tuple[int, str]]:
    """Yield (0-based line number, line) for lines outside fenced code blocks (fence lines excluded)."""
    fence: tuple[str, int] | None = None
    for number, line in enumerate(source.split("\n")):
        match = FENCE.match(line.strip())
        if match:
            run, info = match.group(1), match.group(2).strip()
            if fence is None:
                fence = (run[0], len(run))
            elif run[0] == fence[0] and len(run) >= fence[1] and not info:
                fence = None
            continue
        if fence is None:
            yield number, line.rstrip("\r")


def plain_links(source: str, *, skip_code: bool = True) -> list[tuple[str, str]]:
    """(label, href) of ordinary links outside code, in source order."""
    links: list[tuple[str, str]] = []
    for _, line in prose_lines(source):
        text = INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line) if skip_code else line
        links.extend((m.group(1), m.group(2)) for m in PLAIN_LINK.finditer(text))
    return links
