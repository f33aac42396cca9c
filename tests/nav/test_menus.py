from __future__ import annotations

from stringsh.errors import StringError
from stringsh.nav.menus import Menu, MenuEntry, load_menus, menu_targets, render_menu, render_menu_list, resolve_href

FILES = {
    "nav/main.md": "# Main\n[@setup Setup](../README.md#setup)\n[@ops Ops page](../ops/ops.md)\n"
    "[@site Site](https://example.org)\n[@deep Deep](sub/deeper.md)\n",
    "nav/empty.md": "nothing here\n",
}


def read(path: str) -> str:
    if path not in FILES:
        raise StringError("NOT_FOUND", f"File not found: {path}")
    return FILES[path]


def test_resolve_href_relative_to_the_file() -> None:
    assert resolve_href("nav/main.md", "../ops/ops.md") == "ops/ops.md"
    assert resolve_href("nav/main.md", "sub/x.md#blk") == "nav/sub/x.md#blk"
    assert resolve_href("nav/main.md", "/top.md") == "top.md"
    assert resolve_href("nav/main.md", "#here") == "nav/main.md#here"
    assert resolve_href("README.md", "https://example.org/a") == "https://example.org/a"
    assert resolve_href("README.md", "../../etc/passwd") == "../../etc/passwd"  # the engine refuses it later


def test_menu_across_folders() -> None:
    source = "[!nav:main](nav/main.md)\n[!nav:empty](nav/empty.md)\n[!nav:gone](nav/gone.md)\n"
    menus = load_menus(source, "README.md", read)
    main, empty, gone = menus
    assert [e.id for e in main.entries] == ["main.setup", "main.ops", "main.site", "main.deep"]
    assert main.entries[1] == MenuEntry("main.ops", "Ops page", "../ops/ops.md", "ops/ops.md")
    assert menu_targets(menus)["main.setup"] == "README.md#setup"
    assert menu_targets(menus)["main.deep"] == "nav/sub/deeper.md"
    assert empty.entries == [] and empty.error is None
    assert gone.error == "File not found: nav/gone.md"


def test_menu_of_a_page_in_a_subfolder() -> None:
    files = {"docs/nav/m.md": "[@a A](../../ops/a.md)\n"}
    menus = load_menus("[!nav:m](nav/m.md)\n", "docs/guide.md", files.__getitem__)
    assert menus[0].entries[0].target == "ops/a.md"


def test_render_menu_list_texts() -> None:
    main = Menu("main", "nav/main.md", [MenuEntry(f"main.{i}", f"L{i}", "x", "x") for i in range(5)])
    small = Menu("small", "s.md", [MenuEntry("small.a", "A", "a", "a")])
    assert render_menu_list([main, small]) == (
        "main (5): L0, L1, L2, ... (2 more)\nsmall (1): A\n\n"
        "use: /nav <name> to show menu · /open @menu.id to follow link"
    )
    assert render_menu_list([]) == (
        "Document is open, but no menus are registered on this page.\n\n"
        "You can create a starter nav scaffold from links on this page.\n\nTry: /nav scaffold"
    )


def test_render_menu_entries_and_empty() -> None:
    menu = Menu("main", "m.md", [MenuEntry("main.a", "Alpha", "a", "a"), MenuEntry("main.b", "Beta", "b", "b")])
    assert render_menu(menu) == "[Alpha][@main.a]\n[Beta][@main.b]"
    assert render_menu(Menu("e", "e.md")) is None
