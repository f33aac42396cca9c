"""Menus: a page's `[!nav:name](path)` lines point at menu files whose `[@id Label](href)` lines are the entries.

Hrefs in a menu file are relative to that file, so a menu in `nav/` can lead anywhere in the workspace; entries
are addressed as `@menu.id`. Paths here are workspace-relative POSIX strings; reading goes through a callable so
the engine's confinement and secret rules apply.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from stringsh.errors import StringError
from stringsh.render.index import build_index

SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
PREVIEW = 3
#: Entries a menu shows unfolded on its first view in a topic; the rest are counted (String: 20).
FIRST_VIEW_LIMIT = 20


@dataclass(frozen=True)
class MenuEntry:
    id: str
    label: str
    href: str
    #: Where the entry leads: a workspace-relative path (with `#block` kept) or a URL.
    target: str


@dataclass
class Menu:
    name: str
    path: str
    entries: list[MenuEntry] = field(default_factory=list)
    #: Why the menu file could not be read, when it could not.
    error: str | None = None


def resolve_href(base_file: str, href: str) -> str:
    """An href as written in `base_file`, made workspace-relative; URLs and `act:` links are kept as they are."""
    if SCHEME.match(href):
        return href
    path, sep, fragment = href.partition("#")
    if not path:
        path = base_file
    elif path.startswith("/"):
        path = path.lstrip("/")
    else:
        path = posixpath.join(posixpath.dirname(base_file), path)
    path = posixpath.normpath(path) if path else "."
    return f"{path}{sep}{fragment}"


def load_menus(
    source: str, doc_path: str, read: Callable[[str], str], directives: list[tuple[str, str]] | None = None
) -> list[Menu]:
    """Every menu the page declares, read from its file; an unreadable file gives a menu with `error` set.

    `directives` are (name, path) pairs when the caller has the page's index already, else the source is indexed.
    A menu file's entries are its page shortcuts, read by the same index.
    """
    menus: list[Menu] = []
    seen: set[str] = set()
    if directives is None:
        directives = [(name, href) for name, href, _line in build_index(source).menus]
    for name, href in directives:
        if name in seen:
            continue
        seen.add(name)
        path = resolve_href(doc_path, href).partition("#")[0]
        menu = Menu(name, path)
        try:
            text = read(path)
        except StringError as exc:
            menu.error = exc.message
        except OSError as exc:
            menu.error = exc.strerror or type(exc).__name__
        else:
            menu.entries = [
                MenuEntry(f"{name}.{sid}", label, href, resolve_href(path, href))
                for sid, label, href, _line in build_index(text).shortcuts
            ]
        menus.append(menu)
    return menus


def menu_targets(menus: list[Menu]) -> dict[str, str]:
    """`menu.id` -> target, for shortcut resolution."""
    return {entry.id: entry.target for menu in menus for entry in menu.entries}


def render_menu_list(menus: list[Menu]) -> str:
    """The body of `/nav`: one `name (count): a, b, c, ... (N more)` line per menu and the `use:` line."""
    if not menus:
        return "\n".join(
            [
                "Document is open, but no menus are registered on this page.",
                "",
                "You can create a starter nav scaffold from links on this page.",
                "",
                "Try: /nav scaffold",
            ]
        )
    lines = []
    for menu in menus:
        count = len(menu.entries)
        preview = ", ".join(entry.label for entry in menu.entries[:PREVIEW])
        more = f", ... ({count - PREVIEW} more)" if count > PREVIEW else ""
        problem = f" (cannot read {menu.path}: {menu.error})" if menu.error else ""
        lines.append(f"{menu.name} ({count}): {preview}{more}{problem}")
    lines += ["", "use: /nav <name> to show menu · /open @menu.id to follow link"]
    return "\n".join(lines)


def render_menu(menu: Menu) -> str | None:
    """The body of `/nav name`: `[Label][@menu.id]` lines, or None when the menu is empty."""
    if not menu.entries:
        return None
    return "\n".join(f"[{entry.label}][@{entry.id}]" for entry in menu.entries)


def first_view_lines(menu: Menu, limit: int = FIRST_VIEW_LIMIT) -> list[str]:
    """A menu unfolded above a page the first time a topic sees it: `[Label][@menu.id]` lines, at most `limit`,
    then `... N more — /nav name`; an empty menu says so (String's renderNav)."""
    if not menu.entries:
        return [f"Menu {menu.name} is empty."]
    lines = [f"[{entry.label}][@{entry.id}]" for entry in menu.entries[:limit]]
    if len(menu.entries) > limit:
        lines.append(f"... {len(menu.entries) - limit} more — /nav {menu.name}")
    return lines
