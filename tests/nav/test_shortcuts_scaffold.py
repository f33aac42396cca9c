from __future__ import annotations

from stringsh.nav.scaffold import scaffold, scaffold_id
from stringsh.nav.shortcuts import auto_shortcuts, known_ids, resolve_reference
from stringsh.render import plain
from stringsh.render.document import Document
from stringsh.render.slug import string_slug


def test_slug_as_string_computes_it() -> None:
    assert string_slug("Hello World!") == "hello-world"
    assert string_slug("  Café  au lait ") == "caf-au-lait"


def test_auto_shortcuts_rules() -> None:
    long = "docs/" + "x" * 40 + ".md"
    source = (
        "[Docs](https://a.example) [Docs](https://b.example) [Docs](https://c.example)\n"
        "[short](rel.md) [A very long label that is too long](https://d.example)\n"
        f"[Long path]({long}) [Ünïcode](https://e.example) `[Code](https://f.example)`\n"
    )
    assert auto_shortcuts(source) == {
        "docs": "https://a.example",
        "docs-2": "https://b.example",
        "docs-3": "https://c.example",
        "link-1": "https://d.example",
        "long-path": long,
        "link-2": "https://e.example",
    }


def test_act_links_are_not_auto_shortcuts() -> None:
    """String auto-shortcuts http(s) URLs and hrefs over 40 characters only: `@run-it` must not be offered for
    `[Run it](act:build)`, since `/open @run-it` cannot resolve it."""
    source = "# Page\n\n[Run it](act:build) and [Docs](https://docs.example)\n"
    assert auto_shortcuts(source) == {"docs": "https://docs.example"}
    rendered = plain.render_document(Document.parse(source))
    assert "[Run it](act:build)" in rendered.text
    assert rendered.shortcuts == auto_shortcuts(source)


def test_auto_shortcuts_equal_the_rendering_ones() -> None:
    """One implementation: the ids offered for a page are the ids its rendering gives, numbering included."""
    source = (
        "[Docs](https://a.example)\n\n```\n[Docs](https://code.example)\n```\n\n"
        "[ref][r] [@own Own](https://own.example) [Docs](https://b.example)\n\n[r]: https://ref.example\n"
    )
    doc = Document.parse(source)
    assert plain.auto_shortcuts(doc) == plain.render_document(doc).shortcuts == {
        "docs": "https://a.example",
        "ref": "https://ref.example",
        "docs-2": "https://b.example",
    }


def test_resolution_order_page_values_auto_menus() -> None:
    tables = {"page": {"a": "page-a"}, "values": {"a": "v-a", "b": "v-b"}, "auto": {"c": "auto-c"}}
    menus = {"main.x": "m"}
    assert resolve_reference("a", **tables, menus=menus) == "page-a"
    assert resolve_reference("b", **tables, menus=menus) == "v-b"
    assert resolve_reference("main.x", **tables, menus=menus) == "m"
    assert resolve_reference("zz", **tables, menus=menus) is None
    assert known_ids(["a"], ["a", "b"]) == ["a", "b"]


def test_scaffold_lists_existing_shortcuts_then_links() -> None:
    source = "[@home Home](index.md)\nRead [Getting Started!](start.md) or [API](https://x.example/api).\n"
    assert scaffold(source) == (
        "Copy and edit the shortcuts below to create a nav file:\n\n```markdown\n"
        "[@home home](index.md)\n[@getting-started Getting Started!](start.md)\n[@api API](https://x.example/api)\n"
        "```\n\nThen save to a file (e.g., nav/main.md) and reference it:\n[!nav:main](./nav/main.md)"
    )


def test_scaffold_without_links() -> None:
    assert scaffold("# Nothing\n\nplain text\n") is None


def test_scaffold_id_is_cut_to_20() -> None:
    assert scaffold_id("A Very Long Label For Testing") == "a-very-long-label-fo"
