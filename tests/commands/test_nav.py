"""/nav, /open @menu.id and /info @id on a real workspace (String's /nav replies)."""

from __future__ import annotations

from pathlib import Path

import pytest

README = """# Notes

[!nav:main](nav/main.md)
[!menu:legacy](nav/empty.md)
[!nav:broken](nav/missing.md)

Read [the site](https://example.org/docs) and [@ops Ops](ops/ops.md).

```markdown
[!nav:example](nav/example.md)
```
"""
MENU = """# Main menu
[@setup Setup](../README.md#notes)
[@ops Ops page](../ops/ops.md)
[@guide Guide](../docs/guide.md)
[@deep Deep](../docs/deeper/page.md#part)
"""
GUIDE = """# Guide

[!nav:side](menus/side.md)
"""
SIDE = "[@back Back to ops](../../ops/ops.md)\n"


@pytest.fixture(autouse=True)
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STRINGSH_CONFIG_DIR", str(tmp_path / "config"))


@pytest.fixture
def site(ws: Path) -> Path:
    (ws / "nav").mkdir()
    (ws / "ops").mkdir()
    (ws / "docs" / "menus").mkdir(parents=True)
    (ws / "docs" / "deeper").mkdir()
    (ws / "README.md").write_text(README)
    (ws / "nav" / "main.md").write_text(MENU)
    (ws / "nav" / "empty.md").write_text("no entries\n")
    (ws / "ops" / "ops.md").write_text("# Ops\n\nRun things.\n")
    (ws / "docs" / "guide.md").write_text(GUIDE)
    (ws / "docs" / "menus" / "side.md").write_text(SIDE)
    (ws / "docs" / "deeper" / "page.md").write_text("# Page\n\n## Part\n\ndeep part\n")
    return ws


def text(dispatcher, request: str) -> str:
    return dispatcher.execute(request).text


def test_nav_without_a_document(dispatcher) -> None:
    assert text(dispatcher, "/nav") == (
        "re: /nav\nERROR(INVALID_TARGET): No document is open in this session. "
        "Open a document first, then run /nav again."
    )


def test_menus_listing(site: Path, dispatcher) -> None:
    dispatcher.execute("/open README.md")
    assert text(dispatcher, "/nav") == (
        "re: /nav\nMenus\n---\n"
        "main (4): Setup, Ops page, Guide, ... (1 more)\n"
        "legacy (0): \n"
        "broken (0):  (cannot read nav/missing.md: File not found: nav/missing.md)\n\n"
        "use: /nav <name> to show menu · /open @menu.id to follow link"
    )


def test_one_menu_empty_and_unknown(site: Path, dispatcher) -> None:
    dispatcher.execute("/open README.md")
    assert text(dispatcher, "/nav main") == (
        "re: /nav main\nMenu: main\n---\n"
        "[Setup][@main.setup]\n[Ops page][@main.ops]\n[Guide][@main.guide]\n[Deep][@main.deep]"
    )
    assert text(dispatcher, "/nav legacy") == "re: /nav legacy\nMenu legacy is empty."
    assert text(dispatcher, "/nav example") == (
        "re: /nav example\nERROR(NOT_FOUND): Menu not found: example\n/nav lists the menus.")


def test_page_without_menus(site: Path, dispatcher) -> None:
    dispatcher.execute("/open ops/ops.md")
    assert text(dispatcher, "/nav") == (
        "re: /nav\nMenus\n---\nDocument is open, but no menus are registered on this page.\n\n"
        "You can create a starter nav scaffold from links on this page.\n\nTry: /nav scaffold"
    )
    assert text(dispatcher, "/nav page") == "re: /nav page\nNo shortcuts on this page."
    assert text(dispatcher, "/nav scaffold") == (
        "re: /nav scaffold\nNo links found on this page.\n\n"
        "Nav scaffolding extracts links from the current page and generates shortcut templates.\n"
        "Add some links to your document first using [Label](url) syntax."
    )


def test_nav_page_and_scaffold(site: Path, dispatcher) -> None:
    dispatcher.execute("/open README.md")
    assert text(dispatcher, "/nav page") == (
        "re: /nav page\nShortcuts:\n  @ops → ops/ops.md\n\nAuto:\n  @the-site → https://example.org/docs\n\n"
        "use: /open @id"
    )
    assert text(dispatcher, "/nav scaffold") == (
        "re: /nav scaffold\nNav Scaffold\n---\nCopy and edit the shortcuts below to create a nav file:\n\n"
        "```markdown\n[@ops ops](ops/ops.md)\n[@the-site the site](https://example.org/docs)\n```\n\n"
        "Then save to a file (e.g., nav/main.md) and reference it:\n[!nav:main](./nav/main.md)"
    )
    assert text(dispatcher, "/nav create").startswith("re: /nav create\nNav Scaffold\n---\n")


def test_menu_across_folders_is_followed(site: Path, dispatcher) -> None:
    dispatcher.execute("/open README.md")
    assert text(dispatcher, "/open @main.ops") == "re: /open @main.ops\nOpened ops/ops.md\n---\n# Ops\n\nRun things."
    assert text(dispatcher, "/back").startswith("re: /back\nBack to README.md\n---\n")
    assert text(dispatcher, "/open @main.deep") == (
        "re: /open @main.deep\nOpened docs/deeper/page.md#part\n---\n## Part\n\ndeep part"
    )
    dispatcher.execute("/open docs/guide.md")
    assert text(dispatcher, "/nav side") == "re: /nav side\nMenu: side\n---\n[Back to ops][@side.back]"
    assert text(dispatcher, "/info @side.back") == "re: /info @side.back\n@side.back → ops/ops.md"
    assert text(dispatcher, "/open @side.back").startswith("re: /open @side.back\nOpened ops/ops.md\n")


def test_info_shortcut(site: Path, dispatcher) -> None:
    dispatcher.execute("/open README.md")
    assert text(dispatcher, "/info @ops") == "re: /info @ops\n@ops → ops/ops.md"
    assert text(dispatcher, "/info @the-site") == "re: /info @the-site\n@the-site → https://example.org/docs"
    assert text(dispatcher, "/info @main.setup") == "re: /info @main.setup\n@main.setup → README.md#notes"
    assert text(dispatcher, "/info @nope") == (
        "re: /info @nope\nERROR(NOT_FOUND): Shortcut not found: @nope\n"
        "Available: @ops, @the-site, @main.setup, @main.ops, @main.guide, @main.deep"
    )


def test_menu_escaping_the_workspace_is_refused(ws: Path, dispatcher) -> None:
    (ws / "README.md").write_text("[!nav:evil](../outside.md)\n[!nav:bad](nav.md)\n")
    (ws / "nav.md").write_text("[@x Out](../../etc/passwd)\n")
    dispatcher.execute("/open README.md")
    listing = text(dispatcher, "/nav")
    assert "evil (0):  (cannot read ../outside.md:" in listing
    reply = dispatcher.execute("/open @bad.x")
    assert not reply.ok and reply.code in ("INVALID_PATH", "NOT_FOUND", "FILE_NOT_ALLOWED")
