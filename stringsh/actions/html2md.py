"""HTML to markdown for doc responses: small and honest.

Handles headings, paragraphs, line breaks, links, images (as links), emphasis, inline code, `pre` blocks,
ordered and unordered lists (nested by indentation), block quotes, horizontal rules and simple tables (rows of
cells, first row as header). Drops `script`, `style`, `head`, `template`, `noscript` and `svg`. Anything else
(forms, nav bars, divs) is reduced to its text. Entities are decoded by the standard parser.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from urllib.parse import urljoin

from stringsh.render.scan import fenced_lines, scan

SKIP = {"script", "style", "head", "template", "noscript", "svg"}
BLOCKS = {"p", "div", "section", "article", "main", "header", "footer", "aside", "form", "body", "html", "figure"}
HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
LIST_ITEM = re.compile(r"^(?:- |\d+\. )")
INLINE = {"strong": "**", "b": "**", "em": "*", "i": "*"}


class _Converter(HTMLParser):
    def __init__(self, base: str = "") -> None:
        super().__init__(convert_charrefs=True)
        self.base = base  # a page's URL: its relative links become absolute (and so followable as @shortcuts)
        self.out: list[str] = []
        self.skip = 0
        self.pre = 0
        self.lists: list[list[int]] = []  # [ordered?, counter]
        self.links: list[str | None] = []
        self.quote = 0
        self.table: list[list[str]] | None = None
        self.cell: list[str] | None = None
        self.title: list[str] | None = None
        self.quoted: list[list[str]] = []  # the outer output while a blockquote collects its own

    def absolute(self, href: str | None) -> str | None:
        if not href or not self.base or href.startswith("#"):
            return href
        return urljoin(self.base, href)

    # output helpers
    def emit(self, text: str) -> None:
        if self.cell is not None:
            self.cell.append(text)
        else:
            self.out.append(text)

    def block(self) -> None:
        if self.cell is None:
            self.out.append("\n\n")

    def skipped(self, tag: str, step: int) -> bool:
        """Track nesting in elements whose content is dropped (script, style…); True while inside one."""
        if tag in SKIP:
            self.skip = max(self.skip + step, 0)
            return True
        return self.skip > 0

    def mark(self, tag: str) -> bool:
        """Emphasis and inline code: the same mark opens and closes them."""
        if tag in INLINE:
            self.emit(INLINE[tag])
        elif tag == "code" and not self.pre:
            self.emit("`")
        else:
            return False
        return True

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = dict(attrs)
        if self.skipped(tag, 1) or self.mark(tag):
            return
        if tag in HEADINGS:
            self.block()
            self.emit("#" * HEADINGS[tag] + " ")
        elif tag in BLOCKS:
            self.block()
        elif tag == "br":
            self.emit("  \n" if self.cell is None else " ")
        elif tag == "hr":
            self.block()
            self.emit("---")
            self.block()
        elif tag == "pre":
            self.block()
            self.emit("```\n")
            self.pre += 1
        elif tag in ("ul", "ol"):
            self.block() if not self.lists else None
            self.lists.append([tag == "ol", 0])
        elif tag == "li":
            depth = max(len(self.lists) - 1, 0)
            ordered = self.lists[-1] if self.lists else [False, 0]
            ordered[1] += 1
            marker = f"{ordered[1]}. " if ordered[0] else "- "
            self.emit("\n" + "  " * depth + marker)
        elif tag == "blockquote" and self.cell is None:
            self.block()
            self.quoted.append(self.out)
            self.out = []
        elif tag == "a":
            href = self.absolute(attr.get("href"))
            self.links.append(href)
            if href:
                self.emit("[")
        elif tag == "img":
            src, alt = self.absolute(attr.get("src")), attr.get("alt") or "image"
            if src:
                self.emit(f"[{alt}]({src})")
        elif tag == "table":
            self.block()
            self.table = []
        elif tag == "tr" and self.table is not None:
            self.table.append([])
        elif tag in ("td", "th") and self.table is not None:
            self.cell = []
        elif tag == "title":
            self.title = []

    def handle_endtag(self, tag: str) -> None:
        if self.skipped(tag, -1) or self.mark(tag):
            return
        if tag == "blockquote" and self.quoted and self.cell is None:
            inner = tidy("".join(self.out))
            self.out = self.quoted.pop()
            self.out.append("\n".join(f"> {line}" if line else ">" for line in inner.split("\n")))
            self.block()
        elif tag in HEADINGS or tag in BLOCKS or tag == "blockquote":
            self.block()
        elif tag == "pre":
            self.pre = max(self.pre - 1, 0)
            self.emit("\n```")
            self.block()
        elif tag in ("ul", "ol"):
            if self.lists:
                self.lists.pop()
            if not self.lists:
                self.block()
        elif tag == "a":
            href = self.links.pop() if self.links else None
            if href:
                self.emit(f"]({href})")
        elif tag in ("td", "th") and self.cell is not None and self.table is not None:
            text = " ".join("".join(self.cell).split()).replace("|", "\\|")
            if not self.table:
                self.table.append([])
            self.table[-1].append(text)
            self.cell = None
        elif tag == "table" and self.table is not None:
            rows = [row for row in self.table if row]
            self.table = None
            if rows:
                width = max(len(row) for row in rows)
                rows = [row + [""] * (width - len(row)) for row in rows]
                lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * width]
                lines += ["| " + " | ".join(row) + " |" for row in rows[1:]]
                self.out.append("\n".join(lines))
                self.block()
        elif tag == "title" and self.title is not None:
            self.title = None

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.title is not None:
            self.title.append(data)
            return
        if self.pre:
            self.emit(data)
            return
        text = re.sub(r"\s+", " ", data)
        if self.table is not None and self.cell is None:
            return
        self.emit(text)


def html_to_markdown(html: str, base: str = "") -> str:
    """`base`, the page's URL, makes relative links absolute; without it they stay as written."""
    converter = _Converter(base)
    converter.feed(html)
    converter.close()
    while converter.quoted:  # an unclosed blockquote: its text is kept, unquoted
        inner, converter.out = converter.out, converter.quoted.pop()
        converter.out.extend(inner)
    return tidy("".join(converter.out))


def tidy(raw: str) -> str:
    """Markdown lines without the HTML's indentation (list items and fenced code keep theirs), runs of blank
    lines collapsed."""
    text = re.sub(r"\n{3,}", "\n\n", raw)
    lines: list[str] = []
    source = text.split("\n")
    fenced = fenced_lines(len(source), scan(source).fences)
    for number, line in enumerate(source):
        if fenced[number]:
            lines.append(line)
            continue
        hard_break = line.endswith("  ") and bool(line.strip())
        stripped = line.strip()
        keep_indent = LIST_ITEM.match(stripped) and line.startswith(" ")
        line = (line[: len(line) - len(line.lstrip())] if keep_indent else "") + stripped
        lines.append(line + ("  " if hard_break else ""))
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def looks_like_html(content_type: str, text: str) -> bool:
    if "html" in content_type.lower():
        return True
    head = text.lstrip()[:200].lower()
    return head.startswith(("<!doctype html", "<html"))
