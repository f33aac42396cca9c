"""HTML to markdown for web pages and doc responses, by the markdownify library with our options.

Our options: ATX headings (`# Title`), `-` bullets, fenced `pre` blocks, no backslash escapes in running text
(pages are read here, not re-rendered), links kept as `[text](url)` (never `<url>`, so every link can become an
`@shortcut`) and made absolute against the page's URL, a table's first row as its header, `|` in a cell escaped.
Dropped with their content: `script`, `style`, `head`, `template`, `noscript`, `svg`. A page nested deeper than
markdownify's recursion can follow (hundreds of levels, never a real article) is shown as its plain text.
markdownify and its HTML parser (BeautifulSoup) are imported on first use: start-up does not pay for them.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urljoin

DROPPED = ("script", "style", "head", "template", "noscript", "svg")
OPTIONS: dict[str, Any] = {
    "heading_style": "ATX",
    "bullets": "-",
    "autolinks": False,
    "escape_asterisks": False,
    "escape_underscores": False,
    "table_infer_header": True,
}


def html_to_markdown(html: str, base: str = "") -> str:
    """`base`, the page's URL, makes relative links absolute; without it they stay as written."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    for element in soup.find_all(DROPPED):
        element.decompose()
    if base:
        absolute(soup, base)
    try:
        return converter().convert_soup(soup).strip()
    except RecursionError:  # markdownify recurses once per element: a page nested deeper than the stack is text
        return plain_text(soup.get_text())


def plain_text(text: str) -> str:
    """A page's text without markup: each line's whitespace collapsed, blank lines dropped."""
    return "\n".join(" ".join(line.split()) for line in text.splitlines() if line.strip())


def absolute(soup: Any, base: str) -> None:
    """Relative `href`/`src` against the page's URL, so a link is followable as an @shortcut; `#frag` stays."""
    for attribute in ("href", "src"):
        for element in soup.find_all(attrs={attribute: True}):
            value = element[attribute]
            if value and not value.startswith("#"):
                element[attribute] = urljoin(base, value)


def converter() -> Any:
    """A markdownify converter with our options, its table cells escaping `|` (a bare one would split the cell)."""
    from markdownify import MarkdownConverter

    class Converter(MarkdownConverter):
        def convert_td(self, el: Any, text: str, parent_tags: set[str]) -> str:
            return super().convert_td(el, text.replace("|", "\\|"), parent_tags)

        def convert_th(self, el: Any, text: str, parent_tags: set[str]) -> str:
            return super().convert_th(el, text.replace("|", "\\|"), parent_tags)

    return Converter(**OPTIONS)


def looks_like_html(content_type: str, text: str) -> bool:
    if "html" in content_type.lower():
        return True
    head = text.lstrip()[:200].lower()
    return head.startswith(("<!doctype html", "<html"))
