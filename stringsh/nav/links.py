"""Plain `[label](url)` links outside fenced code, for the nav scaffold.

Shortcuts `[@id Label](href)`, menu lines `[!nav:name](path)` and the fences themselves come from the document
index (`stringsh.render.index`), the one CommonMark fence scanner; String skips fenced code, and so does this.
"""

from __future__ import annotations

import re

from stringsh.render.index import DocIndex, build_index
from stringsh.render.plain import INLINE_CODE
from stringsh.render.scan import fenced_lines

#: An ordinary `[label](url)`: neither a shortcut `[@…]`, a directive `[!…]`, nor an image `![…]`.
PLAIN_LINK = re.compile(r"(?<!!)\[([^\[\]@!][^\[\]]*+)\]\(([^()\s]++)\)")


def plain_links(source: str, index: DocIndex | None = None) -> list[tuple[str, str]]:
    """(label, href) of ordinary links outside fenced code, in source order; `index` when the caller has it."""
    lines = source.split("\n")
    if index is None:
        index = build_index(source, lines)
    fenced = fenced_lines(len(lines), index.fences)
    links: list[tuple[str, str]] = []
    for number, line in enumerate(lines):
        if fenced[number]:
            continue
        text = INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line.rstrip("\r"))
        links.extend((m.group(1), m.group(2)) for m in PLAIN_LINK.finditer(text))
    return links
