from __future__ import annotations

from stringsh.nav.links import Shortcut, menu_directives, page_shortcuts, plain_links

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
        Shortcut("setup", "Setup guide", "../setup.md#install"),
        Shortcut("api", "API", "https://example.org/api"),
        Shortcut("setup2", "Again", "other.md"),
    ]


def test_plain_links_skip_shortcuts_directives_images_code() -> None:
    assert plain_links(PAGE) == [("the docs", "https://docs.example.org")]


def test_unclosed_fence_hides_the_rest() -> None:
    assert page_shortcuts("```\n[@a A](a.md)\n") == []
