"""Auto-shortcuts and `@id` resolution, as String does them.

A plain link becomes `@slug` when its href is a full URL, an `act:` link or longer than 40 characters; lookup of
`@id` goes page shortcuts, value shortcuts, auto-shortcuts, then menu entries (`@menu.id`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from stringsh.nav.links import plain_links

_NOT_SLUG = re.compile(r"[^A-Za-z0-9_\s-]")
_SPACES = re.compile(r"\s+")
_SLUGGABLE = re.compile(r"^[A-Za-z0-9\s-]+$")
#: A flag value or target that is a shortcut reference: `@id` or `@menu.id`, optionally with `#block`.
REFERENCE = re.compile(r"^@([A-Za-z_][\w-]*(?:\.[A-Za-z0-9_-]+)?)(?:#(.*))?$")


def slug(text: str) -> str:
    """String's `toSlug`: lower-case, keep ASCII word characters, whitespace and `-`, join spaces with `-`."""
    return _SPACES.sub("-", _NOT_SLUG.sub("", text.lower()).strip())


def wants_auto_shortcut(href: str) -> bool:
    return href.startswith(("http://", "https://", "act:")) or len(href) > 40


def auto_shortcuts(source: str) -> dict[str, str]:
    """id -> href for the page's auto-shortcuts: label slugs (deduplicated `-2`, `-3`) or `link-N`."""
    found: dict[str, str] = {}
    next_suffix: dict[str, int] = {}
    counter = 1
    for label, href in plain_links(source):
        if not wants_auto_shortcut(href):
            continue
        base = slug(label)
        if len(label) <= 20 and _SLUGGABLE.match(label) and base:
            if base not in found and base not in next_suffix:
                ident = base
                next_suffix[base] = 2
            else:
                n = next_suffix.get(base, 2)
                ident = f"{base}-{n}"
                next_suffix[base] = n + 1
        else:
            ident = f"link-{counter}"
            counter += 1
        found[ident] = href
    return found


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
