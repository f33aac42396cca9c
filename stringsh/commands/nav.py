"""/nav: the open page's menus, one menu's entries, its shortcuts, or a scaffold for a new menu file."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.documents.shortcuts import page_menus, page_shortcuts
from stringsh.errors import StringError
from stringsh.nav.menus import render_menu, render_menu_list
from stringsh.nav.scaffold import NO_LINKS, scaffold
from stringsh.protocol.response import Result
from stringsh.suggest import did_you_mean, with_suggestion

if TYPE_CHECKING:
    from stringsh.render.view import DocumentView

NO_DOCUMENT = "No document is open in this session. Open a document first, then run /nav again."


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
    """Menus and shortcuts show the page's links, which can carry a token: masked with the reply."""
    result = _nav(ctx)
    return Result(result.message, result.content)


def _nav(ctx: Context) -> Result:
    view = ctx.documents.current(NO_DOCUMENT, None)
    name = " ".join(ctx.args).strip()
    if name == "page":
        return Result(_page_listing(view))
    if name in ("scaffold", "create", "bootstrap"):
        text = scaffold(view.doc.text) if view.kind == "markdown" else None
        return Result(NO_LINKS) if text is None else Result("Nav Scaffold", text)
    menus = page_menus(ctx.documents, view)
    if not name:
        return Result("Menus", render_menu_list(menus))
    menu = next((m for m in menus if m.name == name), None)
    if menu is None:
        raise StringError("NOT_FOUND", f"Menu not found: {name}",
                          with_suggestion("/nav lists the menus.", did_you_mean(name, [m.name for m in menus])))
    entries = render_menu(menu)
    if entries is None:
        problem = f" (cannot read {menu.path}: {menu.error})" if menu.error else ""
        return Result(f"Menu {name} is empty.{problem}")
    return Result(f"Menu: {name}", entries)
