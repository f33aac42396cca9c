"""`/nav scaffold`: a ready-to-save menu file built from the links already on the page."""

from __future__ import annotations

import re

from stringsh.nav.links import plain_links
from stringsh.render.index import build_index

_SCAFFOLD_DROP = re.compile(r"[^a-z0-9\s-]")
_SPACES = re.compile(r"\s+")

NO_LINKS = (
    "No links found on this page.\n\n"
    "Nav scaffolding extracts links from the current page and generates shortcut templates.\n"
    "Add some links to your document first using [Label](url) syntax."
)


def scaffold_id(label: str) -> str:
    """String's scaffold id: lower-case, keep `[a-z0-9]`, spaces and `-`, spaces to `-`, at most 20 characters."""
    return _SPACES.sub("-", _SCAFFOLD_DROP.sub("", label.lower()))[:20]


def scaffold(source: str) -> str | None:
    """The scaffold text (without the `Nav Scaffold` header), or None when the page has no links at all."""
    index = build_index(source)
    existing = [(sid, href) for sid, _label, href, _line in index.shortcuts]
    links = [(label, href) for label, href in plain_links(source, index) if not href.startswith(("▶", "action:"))]
    if not existing and not links:
        return None
    lines = ["Copy and edit the shortcuts below to create a nav file:", "", "```markdown"]
    lines += [f"[@{sid} {sid}]({href})" for sid, href in existing]
    lines += [f"[@{scaffold_id(label)} {label}]({href})" for label, href in links]
    lines += ["```", "", "Then save to a file (e.g., nav/main.md) and reference it:", "[!nav:main](./nav/main.md)"]
    return "\n".join(lines)
