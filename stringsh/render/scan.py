"""A one-pass CommonMark line scanner for the block index: headings, fences, code and front matter.

markdown-it-py costs about 1 s per MB, and opening a document must cost far less than a parse, so block
structure comes from this scanner instead of a token stream. It follows CommonMark's block rules closely enough
that its heading lines and fence ranges equal markdown-it-py's token maps on the CommonMark spec examples and on
real documents (tests/render/test_scan.py checks that); lines are 0-based, ends exclusive, like `Token.map`.
"""

from __future__ import annotations

from collections.abc import Callable

from stringsh.render.blocks import (
    FENCE,
    HR,
    REFERENCE,
    SETEXT,
    SPECIAL,
    TABLE_DELIMITER,
    atx_heading,
    dedent,
    front_matter_end,
    html_block_ends,
    html_block_kind,
    indent_of,
    list_marker,
    table_columns,
)


class Structure:
    """Block structure of a document: what the index needs from a parse."""

    __slots__ = ("code", "fences", "front_matter_end", "headings", "stopped_at")

    def __init__(self) -> None:
        #: (line, end, level, text): `line` is the first line, `end` the line after it (setext headings span lines).
        self.headings: list[tuple[int, int, int, str]] = []
        #: (start, end, info, indent) of every fenced code block, at any depth; `end` includes the closing fence.
        self.fences: list[tuple[int, int, str, int]] = []
        #: (start, end) of indented code blocks.
        self.code: list[tuple[int, int]] = []
        #: End line of the YAML front matter (0 when there is none).
        self.front_matter_end = 0
        #: For a partial scan: the line of the heading it stopped at, -1 when it ran to the end.
        self.stopped_at = -1


#: First characters of a line that `run` hands to `line` (indentation, or anything that may start a block).
PLAIN_NOT = SPECIAL | frozenset(" \t")


class _Scanner:
    """Line-by-line state machine; one instance per scan."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.out = Structure()
        self.fence: tuple[str, int, int, int, int] | None = None  # char, length, start, depth, indent
        self.fence_info = ""
        self.html = 0  # open HTML block kind
        self.code_start = -1  # open indented code block
        self.paragraph = -1  # first line of the open top-level paragraph
        self.quote = False  # inside a top-level block quote (paragraph may continue lazily)
        self.quote_para = False
        self.table = False  # inside a table (rows run to a blank line or a block start)
        self.items: list[int] = []  # content columns of open list items, outermost first
        self.item_para = False  # the innermost list item ends with paragraph text (lazy lines continue it)
        self.blank_before = False

    def run(self, start: int = 0, sync: Callable[[tuple[int, int, int, str]], bool] | None = None) -> Structure:
        lines = self.lines
        if start == 0:
            start = self.out.front_matter_end = front_matter_end(lines)
        headings = self.out.headings
        number, end = start, len(lines)
        while number < end:
            text = lines[number].rstrip("\r\n")
            first = text[:1]
            if ((first not in PLAIN_NOT or not text.lstrip(" \t")) and self.fence is None and not self.items
                    and not self.html and not self.quote and self.code_start < 0):
                if first and first not in PLAIN_NOT:  # `line`'s fast paths, without the call
                    if not self.table:  # unindented paragraph text
                        if self.paragraph < 0:
                            self.paragraph = number
                        number += 1
                        continue
                else:  # a blank line with nothing open that it keeps
                    self.paragraph = -1
                    self.quote_para = self.table = False
                    number += 1
                    continue
            count = len(headings)
            self.line(number, text)
            if sync is not None and len(headings) > count and sync(headings[-1]):
                self.out.stopped_at = headings[-1][0]
                return self.out
            number += 1
            if self.fence is not None and not self.items and not self.quote:
                number = self.skip_fenced(number)
            elif self.html:  # only ever open at the top level
                number = self.skip_html(number)
        self.close_all(len(lines) - 1 if lines and lines[-1] == "" else len(lines))
        return self.out

    def skip_html(self, number: int) -> int:
        """The first line from `number` that ends the open HTML block (for kinds 6 and 7 a blank line, else one
        holding the kind's end): `top` changes nothing for the lines before it."""
        kind, lines = self.html, self.lines
        for i in range(number, len(lines)):
            line = lines[i].rstrip("\r\n")
            if (not line.lstrip(" \t")) if kind >= 6 else html_block_ends(kind, line):
                return i
        return len(lines)

    def skip_fenced(self, number: int) -> int:
        """The first line from `number` that may close the open top-level fence: the lines before it change
        nothing (`top` only asks each whether it closes the fence), so they are not handled one by one.

        A closer is indented less than 4 columns, so its fence character is among a line's first four."""
        assert self.fence is not None
        char, lines = self.fence[0], self.lines
        for i in range(number, len(lines)):
            if char in lines[i][:4]:
                return i
        return len(lines)

    # -- closing things -------------------------------------------------------------------------------------
    def close_fence(self, end: int) -> None:
        if self.fence is not None:
            _, _, start, _, indent = self.fence
            self.out.fences.append((start, end, self.fence_info, indent))
            self.fence = None

    def close_code(self, end: int) -> None:
        if self.code_start >= 0:
            last = end
            while last > self.code_start and not self.lines[last - 1].strip():
                last -= 1
            self.out.code.append((self.code_start, last))
            self.code_start = -1

    def close_all(self, end: int) -> None:
        self.close_fence(end)
        self.close_code(end)
        self.html = 0
        self.paragraph = -1
        self.quote = self.quote_para = False
        self.items.clear()
        self.item_para = False

    # -- one line -------------------------------------------------------------------------------------------
    def line(self, number: int, text: str) -> None:
        indent, rest = indent_of(text)
        blank = not rest
        # Fast path: plain paragraph text at the top level.
        if (
            not blank
            and indent < 4
            and rest[0] not in SPECIAL
            and self.fence is None
            and not self.html
            and not self.items
            and not self.quote
            and not self.table
            and self.code_start < 0
        ):
            if self.paragraph < 0:
                self.paragraph = number
            self.blank_before = False
            return
        if blank and not self.items and self.fence is None and not self.html and self.code_start < 0 and not self.quote:
            self.paragraph = -1  # what `top` does with a blank line when nothing is open that a blank line keeps
            self.quote_para = self.table = False
            self.blank_before = True
            return
        if self.items and self.in_items(number, text, indent, rest, blank):
            self.blank_before = blank
            return
        self.top(number, text, indent, rest, blank)
        self.blank_before = blank

    def in_items(self, number: int, text: str, indent: int, rest: str, blank: bool) -> bool:
        """Handle a line while list items are open; False when the line ends them and belongs to the top level."""
        if blank:
            if self.fence is None:
                self.item_para = False
            return True
        depth = 0
        while depth < len(self.items) and indent >= self.items[depth]:
            depth += 1
        if self.fence is not None:
            fence_depth = self.fence[3]
            if depth >= fence_depth:
                inner = dedent(text, self.items[fence_depth - 1])
                if self.is_closer(inner):
                    self.close_fence(number + 1)
                return True
            self.close_fence(number)
        if depth == 0:
            inner_indent, inner = indent, rest
        else:
            inner = dedent(text, self.items[depth - 1])
            inner_indent, inner = indent_of(inner)
        starts_block = self.starts_block(inner, inner_indent, interrupting=self.item_para)
        if not starts_block and depth < len(self.items) and inner_indent < 4:
            # A marker left of the innermost item's content ends that item rather than interrupting its paragraph,
            # so it needs neither the number 1 nor content (markdown-it's isTerminatingParagraph).
            starts_block = list_marker(inner, inner_indent) is not None
        if depth < len(self.items) and self.item_para and not starts_block and inner_indent < 4:
            return True  # lazy continuation of the innermost item's paragraph
        if depth == 0:
            marker = list_marker(rest, indent) if indent < 4 else None
            if marker is None or HR.match(rest):
                self.items.clear()
                self.item_para = False
                return False
            self.items[:] = [marker[0]]
            self.item_para = not marker[1]
            self.item_content(number, rest, indent, marker)
            return True
        del self.items[depth:]
        marker = list_marker(inner, inner_indent) if inner_indent < 4 and not _hr(inner) else None
        if marker is not None:
            self.items.append(self.items[-1] + marker[0])
            self.item_para = not marker[1]
            self.item_content(number, inner, inner_indent, marker)
            return True
        self.inner_block(number, inner, inner_indent, len(self.items))
        return True

    def item_content(self, number: int, rest: str, indent: int, marker: tuple[int, bool]) -> None:
        """The text after a list marker may itself open a fence or a nested item."""
        if marker[1]:
            return
        content = rest[marker[0] - indent :] if marker[0] - indent <= len(rest) else ""
        inner_indent, inner = indent_of(content)
        nested = list_marker(inner, inner_indent) if inner and not _hr(inner) else None
        if nested is not None and inner_indent < 4:
            self.items.append(self.items[-1] + inner_indent + nested[0] - inner_indent)
            self.item_para = not nested[1]
            return
        self.inner_block(number, inner, inner_indent, len(self.items))

    def inner_block(self, number: int, inner: str, inner_indent: int, depth: int) -> None:
        """A line of list-item content: only fences matter (headings inside items are not top-level)."""
        match = FENCE.match(inner) if inner_indent < 4 and inner[:1] in "`~" else None
        if match and not (match.group(1)[0] == "`" and "`" in match.group(2)):
            self.fence = (match.group(1)[0], len(match.group(1)), number, depth, inner_indent)
            self.fence_info = match.group(2).strip()
            self.item_para = False
            return
        self.item_para = inner_indent < 4 or self.item_para
        if inner_indent < 4 and (_hr(inner) or atx_heading(inner)):
            self.item_para = False

    def quote_line(self, number: int, rest: str) -> None:
        """A `>` line of a top-level block quote: only fences inside it matter."""
        inner = rest[1:]
        if inner[:1] == " ":
            inner = inner[1:]
        elif inner[:1] == "\t":
            inner = "  " + inner[1:]
        if self.fence is not None:
            if self.is_closer(inner):
                self.close_fence(number + 1)
            return
        inner_indent, inner_rest = indent_of(inner)
        match = FENCE.match(inner_rest) if inner_indent < 4 and inner_rest[:1] in "`~" else None
        if match and not (match.group(1)[0] == "`" and "`" in match.group(2)):
            self.fence = (match.group(1)[0], len(match.group(1)), number, 0, inner_indent)
            self.fence_info = match.group(2).strip()
            self.quote_para = False
            return
        self.quote_para = bool(inner_rest) and not self.starts_block(inner_rest, inner_indent, interrupting=True)

    def is_table(self, number: int, rest: str) -> bool:
        """A delimiter row under a header row with pipes and the same number of columns starts a table."""
        if not TABLE_DELIMITER.match(rest):
            return False
        header = self.lines[number - 1].strip()
        if "|" not in header:
            return False
        return table_columns(header) == table_columns(rest.strip())

    def is_closer(self, line: str) -> bool:
        assert self.fence is not None
        char, length = self.fence[0], self.fence[1]
        indent, rest = indent_of(line)
        if indent >= 4 or not rest.startswith(char * length):
            return False
        return rest.rstrip(" \t").strip(char) == ""

    def starts_block(self, rest: str, indent: int, *, interrupting: bool) -> bool:
        """Does this line start a block that can interrupt a paragraph?"""
        if not rest or indent >= 4:
            return False
        first = rest[0]
        if first == "#":
            return atx_heading(rest) is not None
        if first in "`~":
            match = FENCE.match(rest)
            return bool(match) and not (first == "`" and "`" in match.group(2))
        if first == ">":
            return True
        if first == "<":
            return html_block_kind(rest, interrupting=True) > 0
        if first in "-*_" and HR.match(rest):
            return True
        if first in "-*+" or first.isdigit():
            marker = list_marker(rest, indent)
            if marker is None or (interrupting and marker[1]):
                return False
            if not (interrupting and first.isdigit()):
                return True
            return int(rest[: len(rest) - len(rest.lstrip("0123456789"))]) == 1  # only a list from 1 interrupts
        return False

    def top(self, number: int, text: str, indent: int, rest: str, blank: bool) -> None:
        """A line at the top level (no open list item)."""
        if self.fence is not None and not self.quote:
            if self.is_closer(text):
                self.close_fence(number + 1)
            return
        if self.html:
            if self.html >= 6:
                if blank:
                    self.html = 0
                return
            if html_block_ends(self.html, text):
                self.html = 0
            return
        if self.code_start >= 0:
            if blank or indent >= 4:
                return
            self.close_code(number)
        if blank:
            if self.quote:
                self.close_fence(number)
            self.paragraph = -1
            self.quote = self.quote_para = self.table = False
            return
        if self.quote:
            if indent < 4 and rest.startswith(">"):
                self.quote_line(number, rest)
                return
            if self.fence is None and self.quote_para and not self.starts_block(rest, indent, interrupting=True):
                return
            self.close_fence(number)
            self.quote = self.quote_para = False
        if self.table:
            if not self.starts_block(rest, indent, interrupting=True):
                return
            self.table = False
        if indent >= 4:
            if self.paragraph < 0:
                self.code_start = number
            return
        first = rest[0]
        if self.paragraph >= 0 and first in "|-:" and "-" in rest and self.is_table(number, rest):
            self.table = True
            self.paragraph = -1
            return
        if self.paragraph >= 0 and first in "=-" and SETEXT.match(rest):
            while self.paragraph < number and REFERENCE.match(self.lines[self.paragraph]):
                self.paragraph += 1  # reference definitions are not heading text
            if self.paragraph == number:
                self.paragraph = -1 if first == "-" and HR.match(rest) else number
                return
            level = 1 if first == "=" else 2
            para = " ".join(line.strip() for line in self.lines[self.paragraph : number])
            self.out.headings.append((self.paragraph, number + 1, level, para))
            self.paragraph = -1
            return
        if first == "#":
            heading = atx_heading(rest)
            if heading is not None:
                self.out.headings.append((number, number + 1, heading[0], heading[1]))
                self.paragraph = -1
                return
        elif first in "`~":
            match = FENCE.match(rest)
            if match and not (first == "`" and "`" in match.group(2)):
                self.fence = (first, len(match.group(1)), number, 0, indent)
                self.fence_info = match.group(2).strip()
                self.paragraph = -1
                return
        elif first == ">":
            self.quote = True
            self.paragraph = -1
            self.quote_line(number, rest)
            return
        elif first == "<":
            kind = html_block_kind(rest, interrupting=self.paragraph >= 0)
            if kind:
                self.paragraph = -1
                if kind < 6 and html_block_ends(kind, rest[1:] if kind == 4 else rest):
                    return
                self.html = kind
                return
        if first in "-*_" and HR.match(rest):
            self.paragraph = -1
            return
        if first in "-*+" or first.isdigit():
            marker = list_marker(rest, indent)
            if marker is not None and self.starts_block(rest, indent, interrupting=self.paragraph >= 0):
                self.paragraph = -1
                self.items[:] = [marker[0]]
                self.item_para = not marker[1]
                self.item_content(number, rest, indent, marker)
                return
        if self.paragraph < 0:
            self.paragraph = number


def _hr(line: str) -> bool:
    """A thematic break (`HR`), the pattern run only on a line that can start one."""
    return line[:1] in "-*_" and HR.match(line) is not None


def scan(lines: list[str]) -> Structure:
    """Scan a document split on `\\n` (a trailing `\\r` on a line is ignored)."""
    return _Scanner(lines).run()


def scan_from(lines: list[str], start: int, sync: Callable[[tuple[int, int, int, str]], bool]) -> Structure:
    """Scan from a line where the state is known to be neutral (right after a top-level heading), stopping after
    the first heading `sync` accepts (`stopped_at` is its line; -1 when the scan ran to the end).

    After a top-level heading nothing is open (no paragraph, fence, HTML block, list, quote or table), so a scan
    restarted there sees exactly what a scan from the top sees; that is what lets a block edit re-index only the
    lines around the block.
    """
    return _Scanner(lines).run(start, sync)


def fenced_lines(line_count: int, fences: list[tuple[int, int, str, int]]) -> list[bool]:
    """Per line, whether it belongs to a fenced code block (fence lines included), from a scan's or an index's
    `fences`: the one fence detection for everything that must leave code alone (links, chunking, heading ids)."""
    fenced = [False] * line_count
    for start, end, _info, _indent in fences:
        end = min(end, line_count)
        fenced[start:end] = [True] * (end - start)
    return fenced
