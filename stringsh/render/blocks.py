"""CommonMark block-start tests for the line scanner: headings, fences, HTML blocks, list markers, tables.

Each function looks at one line with its indentation already removed, as CommonMark's block rules do.
"""

from __future__ import annotations

import re

from stringsh.lazyexports import lazy_pattern

# CommonMark's HTML block tag names (start condition 6) and open/close tag syntax (condition 7), written out here
# rather than imported from markdown-it so that scripted start-up does not load the markdown parser.
BLOCK_TAG_NAMES = frozenset(
    [
        "address",
        "article",
        "aside",
        "base",
        "basefont",
        "blockquote",
        "body",
        "caption",
        "center",
        "col",
        "colgroup",
        "dd",
        "details",
        "dialog",
        "dir",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "frame",
        "frameset",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "head",
        "header",
        "hr",
        "html",
        "iframe",
        "legend",
        "li",
        "link",
        "main",
        "menu",
        "menuitem",
        "nav",
        "noframes",
        "ol",
        "optgroup",
        "option",
        "p",
        "param",
        "search",
        "section",
        "summary",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "title",
        "tr",
        "track",
        "ul",
    ]
)
_ATTRIBUTE = r"""(?:\s+[a-zA-Z_:][a-zA-Z0-9:._-]*(?:\s*=\s*(?:[^"'=<>`\x00-\x20]+|'[^']*'|"[^"]*"))?)"""
_OPEN_TAG = r"<[A-Za-z][A-Za-z0-9\-]*" + _ATTRIBUTE + r"*\s*\/?>"
_CLOSE_TAG = r"<\/[A-Za-z][A-Za-z0-9\-]*\s*>"
HR = lazy_pattern(r"^([-*_])(?:[ \t]*\1){2,}[ \t]*$")
FENCE = lazy_pattern(r"^(`{3,}|~{3,})(.*)$")
BULLET = lazy_pattern(r"^([-+*])(?:([ \t]+)(.*)|$)")
ORDERED = lazy_pattern(r"^(\d{1,9})([.)])(?:([ \t]+)(.*)|$)")
SETEXT = lazy_pattern(r"^(=+|-+)[ \t]*$")
TABLE_DELIMITER = lazy_pattern(r"^\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
REFERENCE = lazy_pattern(r"""^ {0,3}\[[^\]]+\]:[ \t]*\S+(?:[ \t]+(?:"[^"]*"|'[^']*'|\([^)]*\)))?[ \t]*$""")
HTML_SEVEN = lazy_pattern("^(?:" + _OPEN_TAG + "|" + _CLOSE_TAG + r")\s*$")
HTML_BLOCK_NAMES = BLOCK_TAG_NAMES
HTML_TAG_NAME = lazy_pattern(r"^</?([A-Za-z][A-Za-z0-9-]*)(?=[\s/>]|$)")
HTML_ONE = lazy_pattern(r"^<(script|pre|style|textarea)(?=[\s>]|$)", re.IGNORECASE)
HTML_ONE_END = lazy_pattern(r"</(script|pre|style|textarea)>", re.IGNORECASE)
HTML_ENDS = {2: "-->", 3: "?>", 4: ">", 5: "]]>"}
#: First characters after indentation that may start something other than paragraph text (`|` and `:` may start
#: a table's delimiter row).
SPECIAL = frozenset("#`~<>-*+_=0123456789|:")


def indent_of(line: str) -> tuple[int, str]:
    """Column width of the leading whitespace (tabs to multiples of 4) and the rest of the line."""
    stripped = line.lstrip(" \t")
    lead = len(line) - len(stripped)
    if "\t" not in line[:lead]:
        return lead, stripped
    return len(line[:lead].expandtabs(4)), stripped


def dedent(line: str, columns: int) -> str:
    """Remove `columns` columns of indentation (a tab wider than the rest becomes spaces)."""
    if columns <= 0:
        return line
    lead = len(line) - len(line.lstrip(" \t"))
    head = line[:lead].expandtabs(4)
    return head[columns:] + line[lead:] if len(head) >= columns else line[lead:]


def front_matter_end(lines: list[str]) -> int:
    """Lines taken by a leading `---` … `---` (or `...`) YAML block; 0 when absent or unclosed."""
    if not lines or lines[0].rstrip() != "---":
        return 0
    for i in range(1, len(lines)):
        if lines[i].rstrip() in ("---", "..."):
            return i + 1
    return 0


def closes_fence(opener: str, closer: str) -> bool:
    """Whether `closer` ends the fence `opener` starts (both without indentation), CommonMark's way: a run of the
    same character, at least as long, and no info string. Tells an indexed fence that ends at its container's end
    from one that was closed."""
    start, end = FENCE.match(opener), FENCE.match(closer)
    if start is None or end is None or end.group(2).strip():
        return False
    return end.group(1)[0] == start.group(1)[0] and len(end.group(1)) >= len(start.group(1))


def atx_heading(rest: str) -> tuple[int, str] | None:
    """(level, text) when `rest` (indentation removed) is an ATX heading."""
    level = len(rest) - len(rest.lstrip("#"))
    if not 1 <= level <= 6:
        return None
    tail = rest[level:]
    if tail and tail[0] not in " \t":
        return None
    text = tail.strip(" \t")
    closing = text.rstrip("#")
    if not closing:
        text = ""
    elif closing != text and closing[-1] in " \t":
        text = closing.rstrip(" \t")
    return level, text


def html_block_kind(rest: str, *, interrupting: bool) -> int:
    """CommonMark's HTML block start condition (1–7) for a line, or 0."""
    if not rest.startswith("<"):
        return 0
    if HTML_ONE.match(rest):
        return 1
    if rest.startswith("<!--"):
        return 2
    if rest.startswith("<?"):
        return 3
    if rest.startswith("<![CDATA["):
        return 5
    if len(rest) > 2 and rest[1] == "!" and rest[2].isalpha():
        return 4
    match = HTML_TAG_NAME.match(rest)
    if match and match.group(1).lower() in HTML_BLOCK_NAMES:
        return 6
    if not interrupting and HTML_SEVEN.match(rest):
        return 7
    return 0


def html_block_ends(kind: int, line: str) -> bool:
    if kind == 1:
        return HTML_ONE_END.search(line) is not None
    return HTML_ENDS[kind] in line


#: Characters a bullet list marker starts with (an ordered one starts with a digit).
LIST_STARTS = frozenset("-+*")


def list_marker(rest: str, indent: int) -> tuple[int, bool] | None:
    """(content column relative to the line, item is empty) when `rest` starts a list item."""
    first = rest[:1]
    if first not in LIST_STARTS and not first.isdigit():  # what both patterns need, without running them
        return None
    match = BULLET.match(rest)
    width = 1
    if match is None:
        match = ORDERED.match(rest)
        if match is None:
            return None
        width = len(match.group(1)) + 1
        spaces, content = match.group(3), match.group(4)
    else:
        spaces, content = match.group(2), match.group(3)
    if spaces is None or not content or not content.strip():
        return indent + width + 1, True
    gap = len((" " * (indent + width) + spaces).expandtabs(4)) - indent - width
    if gap > 4:
        gap = 1
    return indent + width + gap, False


def table_columns(row: str) -> int:
    """Cells in a table row: pipes not escaped with a backslash, outer pipes ignored."""
    cells = re.split(r"(?<!\\)\|", row.strip())
    if cells and not cells[0].strip():
        cells = cells[1:]
    if cells and not cells[-1].strip():
        cells = cells[:-1]
    return len(cells)
