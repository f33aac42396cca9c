"""`@id` resolution, as String does it: page shortcuts, value shortcuts, auto-shortcuts, then menu entries.

Auto-shortcuts themselves are assigned by the renderer (`stringsh.render.plain.auto_shortcuts`), the one place
that knows which links become `@id`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from stringsh.render import plain
from stringsh.render.document import Document


def auto_shortcuts(source: str) -> dict[str, str]:
    """id -> href of a page's auto-shortcuts, for callers holding only its text (the renderer's own rule)."""
    return plain.auto_shortcuts(Document.parse(source))


def resolve_reference(
    ident: str,
    *,
    page: Mapping[str, str],
    values: Mapping[str, str] | None = None,
    auto: Mapping[str, str] | None = None,
    menus: Mapping[str, str] | None = None,
) -> str | None:
    """The href `@ident` points to, or None; the first table that has it wins."""
    for table in (page, values or {}, auto or {}, menus or {}):
        if ident in table:
            return table[ident]
    return None


def known_ids(*tables: Iterable[str]) -> list[str]:
    """Every id in lookup order, without repeats: what an unknown-shortcut error lists."""
    seen: dict[str, None] = {}
    for table in tables:
        for ident in table:
            seen.setdefault(ident, None)
    return list(seen)
