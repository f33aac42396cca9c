"""`@id` lookups from the open page, in String's order: page shortcuts, auto-shortcuts, menu entries (`@menu.id`).

/open, /info, /nav and actions (`--flag @id`) all resolve through here.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from stringsh.errors import StringError
from stringsh.nav.menus import SCHEME, Menu, load_menus, menu_targets
from stringsh.nav.shortcuts import known_ids, resolve_reference

if TYPE_CHECKING:
    from stringsh.documents.service import DocumentService
    from stringsh.render.view import DocumentView


def page_menus(documents: DocumentService, view: DocumentView) -> list[Menu]:
    """The page's menus, read now through the engine (menu files are small; a changed file shows at once)."""
    if view.kind != "markdown" or not view.index.menus:
        return []
    workspace = documents.workspace
    topic = documents.topic

    def read(path: str) -> str:
        return workspace.read_text(workspace.relative(path), topic=topic).text

    directives = [(name, path) for name, path, _line in view.index.menus]
    return load_menus(view.doc.text, view.path, read, directives)


def page_shortcuts(view: DocumentView) -> dict[str, str]:
    """id -> href of the page's own shortcuts: `[@id Label](href)` links, then reference-style definitions
    `[@id]: href` (String's parser keeps both; the inline link wins when an id has both)."""
    if view.kind != "markdown":
        return {}
    found = {sid: href for sid, _label, href, _line in view.index.shortcuts}
    for name, href in view.index.references.items():
        if name.startswith("@") and len(name) > 1:
            found.setdefault(name[1:], href)
    return found


def shortcut_tables(
    documents: DocumentService, view: DocumentView
) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """(page, auto, menu) tables; menu targets are workspace-relative paths or URLs."""
    page = page_shortcuts(view)
    auto = dict(view.auto_shortcuts)
    return page, auto, menu_targets(page_menus(documents, view))


def resolve_shortcut(documents: DocumentService, ident: str) -> str | None:
    """Where `@ident` leads from the open page, or None; nothing open means no shortcuts."""
    view = documents.current_or_none()
    if view is None:
        return None
    page, auto, menus = shortcut_tables(documents, view)
    return resolve_reference(ident, page=page, auto=auto, menus=menus)


def shortcut_ids(documents: DocumentService) -> list[str]:
    view = documents.current_or_none()
    if view is None:
        return []
    page, auto, menus = shortcut_tables(documents, view)
    return known_ids(page, auto, menus)


def menu_href(documents: DocumentService, view: DocumentView, ident: str) -> str | None:
    """For `/open @menu.id`: the entry's target relative to the open page's folder (as page hrefs are)."""
    if "." not in ident:
        return None
    target = menu_targets(page_menus(documents, view)).get(ident)
    if target is None or "://" in target or target.startswith("act:"):
        return target
    path, sep, fragment = target.partition("#")
    relative = posixpath.relpath(path, view.folder or ".") if path else ""
    return f"{relative}{sep}{fragment}"


def broken_shortcuts(documents: DocumentService, view: DocumentView) -> list[str]:
    """/info warnings for page shortcuts whose local target file does not exist (URLs are not checked: no fetch)."""
    if view.kind != "markdown" or view.remote:
        return []
    lines = {sid: line for sid, _label, _href, line in view.index.shortcuts}
    lines.update({name[1:]: line for name, _url, line in view.index.reference_lines if name.startswith("@")})
    warnings: list[str] = []
    for ident, href in page_shortcuts(view).items():
        path = href.partition("#")[0]
        if not path or SCHEME.match(path):
            continue
        target = posixpath.normpath(posixpath.join(view.folder, path)) if not path.startswith("/") else path
        if not _exists(documents, target):
            warnings.append(f"line {lines.get(ident, 0) + 1}: shortcut @{ident} → {href}: target not found")
    return warnings


def _exists(documents: DocumentService, path: str) -> bool:
    """Whether the path names something in the workspace; a path the workspace refuses counts as missing."""
    try:
        return documents.workspace.stat(path) is not None
    except StringError:
        return False
