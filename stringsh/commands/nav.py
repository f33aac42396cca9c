"""/nav: the open page's menus, one menu's entries, its shortcuts, or a scaffold for a new menu file.

Also the `@menu.id` and `/info @id` lookups that /open and /info call (String's order: page shortcuts, value
shortcuts, auto-shortcuts, menu entries).
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.errors import StringError
from stringsh.nav.menus import Menu, load_menus, menu_targets, render_menu, render_menu_list
from stringsh.nav.scaffold import NO_LINKS, scaffold
from stringsh.nav.shortcuts import known_ids, resolve_reference
from stringsh.protocol.response import Result

if TYPE_CHECKING:
    from stringsh.render.view import DocumentView

NO_DOCUMENT = "No document is open in this session. Open a document first, then run /nav again."


def current_document(ctx: Context) -> DocumentView | None:
    """The topic's open document view (the renderer is imported on first use, not at start-up)."""
    from stringsh.render.view import DocumentView

    view = ctx.session.document
    return view if isinstance(view, DocumentView) else None


def open_view(ctx: Context, message: str = NO_DOCUMENT) -> DocumentView:
    view = current_document(ctx)
    if view is None:
        raise StringError("INVALID_TARGET", message)
    return view


def page_menus(ctx: Context, view: DocumentView) -> list[Menu]:
    """The page's menus, read now through the engine (menu files are small; a changed file shows at once)."""
    if view.kind != "markdown" or not view.index.menus:
        return []
    workspace = ctx.dispatcher.workspace
    topic = ctx.session.topic

    def read(path: str) -> str:
        return workspace.read_text(workspace.relative(path), topic=topic).text

    directives = [(name, path) for name, path, _line in view.index.menus]
    return load_menus(view.doc.text, view.path, read, directives)


def page_shortcuts(view: DocumentView) -> dict[str, str]:
    if view.kind != "markdown":
        return {}
    return {sid: href for sid, _label, href, _line in view.index.shortcuts}


def shortcut_tables(ctx: Context, view: DocumentView) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """(page, auto, menu) tables; menu targets are workspace-relative paths or URLs."""
    page = page_shortcuts(view)
    auto = dict(view.auto_shortcuts)
    return page, auto, menu_targets(page_menus(ctx, view))


def resolve_shortcut(ctx: Context, ident: str) -> str | None:
    """Where `@ident` leads from the open page, or None; nothing open means no shortcuts."""
    view = current_document(ctx)
    if view is None:
        return None
    page, auto, menus = shortcut_tables(ctx, view)
    return resolve_reference(ident, page=page, auto=auto, menus=menus)


def shortcut_ids(ctx: Context) -> list[str]:
    view = current_document(ctx)
    if view is None:
        return []
    page, auto, menus = shortcut_tables(ctx, view)
    return known_ids(page, auto, menus)


def menu_href(ctx: Context, view: DocumentView, ident: str) -> str | None:
    """For `/open @menu.id`: the entry's target relative to the open page's folder (as page hrefs are)."""
    if "." not in ident:
        return None
    target = menu_targets(page_menus(ctx, view)).get(ident)
    if target is None or "://" in target or target.startswith("act:"):
        return target
    path, sep, fragment = target.partition("#")
    relative = posixpath.relpath(path, view.folder or ".") if path else ""
    return f"{relative}{sep}{fragment}"


def shortcut_info(ctx: Context, reference: str) -> Result:
    """`/info @id`: `@id → href`, or NOT_FOUND with the ids there are."""
    ident = reference[1:].partition("#")[0]
    target = resolve_shortcut(ctx, ident)
    if target is None:
        ids = shortcut_ids(ctx)
        hint = f"Available: {', '.join('@' + i for i in ids)}" if ids else "This page has no shortcuts."
        raise StringError("NOT_FOUND", f"Shortcut not found: @{ident}", hint)
    return Result(f"@{ident} → {target}")


def _page_listing(view: DocumentView) -> str:
    lines: list[str] = []
    page = page_shortcuts(view)
    if page:
        lines.append("Shortcuts:")
        lines += [f"  @{ident} → {href}" for ident, href in page.items()]
    if view.auto_shortcuts:
        if lines:
            lines.append("")
        lines.append("Auto:")
        lines += [f"  @{ident} → {href}" for ident, href in view.auto_shortcuts.items()]
    if not lines:
        return "No shortcuts on this page."
    return "\n".join([*lines, "", "use: /open @id"])


@handler("nav")
def nav(ctx: Context) -> Result:
    view = open_view(ctx)
    name = " ".join(ctx.args).strip()
    if name == "page":
        return Result(_page_listing(view))
    if name in ("scaffold", "create", "bootstrap"):
        text = scaffold(view.doc.text) if view.kind == "markdown" else None
        return Result(NO_LINKS) if text is None else Result("Nav Scaffold", text)
    menus = page_menus(ctx, view)
    if not name:
        return Result("Menus", render_menu_list(menus))
    menu = next((m for m in menus if m.name == name), None)
    if menu is None:
        raise StringError("NOT_FOUND", f"Menu not found: {name}")
    entries = render_menu(menu)
    if entries is None:
        problem = f" (cannot read {menu.path}: {menu.error})" if menu.error else ""
        return Result(f"Menu {name} is empty.{problem}")
    return Result(f"Menu: {name}", entries)
