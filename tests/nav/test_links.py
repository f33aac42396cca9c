from __future__ import annotations

from stringsh.nav.links import plain_links
from stringsh.nav.menus import load_menus
from stringsh.render.index import build_index


def menu_directives(source: str) -> list[tuple[str, str]]:
    """The menus load_menus reads: the index's directives, a repeated name once."""
    return [(menu.name, menu.path) for menu in load_menus(source, "page.md", lambda path: "")]


def page_shortcuts(source: str) -> list[tuple[str, str, str]]:
    return [(sid, label, href) for sid, label, href, _line in build_index(source).shortcuts]


PAGE = """# Ops

[!nav:main](nav/main.md)
[!menu:old](legacy.md)
  [!nav:indented](x.md)
text [!nav:inline](no.md) is not a directive

[@setup Setup guide](../setup.md#install) and [@api API](https://example.org/api)
[@setup Again](other.md)

```markdown
[!nav:fenced](fenced.md)
[@hidden Hidden](h.md)
[Fenced link](https://example.org/fenced)
```

~~~~
```
[@stillhidden x](y.md)
```
~~~~

See [the docs](https://docs.example.org) and `[code](https://no.example)` and ![img](pic.png).
"""


def test_menu_directives_outside_code_including_legacy_and_indented() -> None:
    assert menu_directives(PAGE) == [("main", "nav/main.md"), ("old", "legacy.md"), ("indented", "x.md")]


def test_duplicate_menu_name_keeps_first() -> None:
    assert menu_directives("[!nav:a](one.md)\n[!nav:a](two.md)\n") == [("a", "one.md")]


def test_page_shortcuts_skip_fences_and_number_duplicates() -> None:
    assert page_shortcuts(PAGE) == [
        ("setup", "Setup guide", "../setup.md#install"),
        ("api", "API", "https://example.org/api"),
        ("setup2", "Again", "other.md"),
    ]


def test_plain_links_skip_shortcuts_directives_images_code() -> None:
    assert plain_links(PAGE) == [("the docs", "https://docs.example.org")]


def test_unclosed_fence_hides_the_rest() -> None:
    assert page_shortcuts("```\n[@a A](a.md)\n") == []
