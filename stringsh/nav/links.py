"""SFMD link syntax outside code: shortcuts `[@id Label](href)`, menu lines `[!nav:name](path)`, plain links.

String scans the raw source line by line and skips fenced code (CommonMark fence rules), so this does too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

FENCE = re.compile(r"^(`{3,}|~{3,})(.*)$")
# Runs stop at the next bracket or parenthesis: linear time on hostile input (see render/sfmd.py SHORTCUT).
SHORTCUT = re.compile(r"\[@([A-Za-z0-9_-]+)\s++([^\[\]]++)\]\(([^()]++)\)")
#: `[!nav:name](path)` and the legacy `[!menu:name](path)`, alone on a line.
MENU_LINE = re.compile(r"^\[!(?:nav|menu):([A-Za-z0-9_-]+)\]\(([^)]+)\)$")
#: An ordinary `[label](url)`: neither a shortcut `[@…]`, a directive `[!…]`, nor an image `![…]`.
PLAIN_LINK = re.compile(r"(?<!!)\[([^\[\]@!][^\[\]]*+)\]\(([^()\s]++)\)")
INLINE_CODE = re.compile(r"`[^`\n]+`")


@dataclass(frozen=True)
class Shortcut:
    id: str
    label: str
    href: str


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


def page_shortcuts(source: str) -> list[Shortcut]:
    """Author shortcuts in order; a repeated id gets a numeric suffix (`id2`, `id3`) as String's parser does."""
    seen: set[str] = set()
    found: list[Shortcut] = []
    for _, line in prose_lines(source):
        for match in SHORTCUT.finditer(line):
            ident = match.group(1)
            if ident in seen:
                suffix = 2
                while f"{ident}{suffix}" in seen:
                    suffix += 1
                ident = f"{ident}{suffix}"
            seen.add(ident)
            found.append(Shortcut(ident, match.group(2).strip(), match.group(3).strip()))
    return found


def menu_directives(source: str) -> list[tuple[str, str]]:
    """(name, path) of every menu the page declares, in order; a later duplicate name is ignored."""
    menus: dict[str, str] = {}
    for _, line in prose_lines(source):
        match = MENU_LINE.match(line.strip())
        if match and match.group(1) not in menus:
            menus[match.group(1)] = match.group(2).strip()
    return list(menus.items())


def plain_links(source: str, *, skip_code: bool = True) -> list[tuple[str, str]]:
    """(label, href) of ordinary links outside code, in source order."""
    links: list[tuple[str, str]] = []
    for _, line in prose_lines(source):
        text = INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line) if skip_code else line
        links.extend((m.group(1), m.group(2)) for m in PLAIN_LINK.finditer(text))
    return links
