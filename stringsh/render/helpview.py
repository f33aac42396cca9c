"""Help replies (`/help`, `/help <cmd>`, `/help errors`, `/help bash`) for people: markdown, and the aligned
`command   what it does` columns as a two-column grid whose cells wrap on their own, so a long description
continues under itself instead of at column 0.

The grid is laid out for the width it is drawn at, as argparse and git lay out options: the term column takes at
most two fifths of it; a term longer than its column stands on a line of its own with its description under it in
the description column (never folded mid-word); and where the description column would be narrower than
`MIN_TEXT`, every row stacks that way.

The wire text stays what agents read (aligned plain text); this only decides how a terminal shows it.
"""

from __future__ import annotations

import re

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.markdown import Markdown
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

#: Messages of the replies whose content is help text.
HELP_MESSAGES = ("Help: ", "Bash Session", "String Commands", "Error Codes")
#: One row of aligned columns: a term, two or more spaces, its description.
ROW = re.compile(r"^(?P<indent> *)(?P<term>\S(?:.*?\S)??)(?P<gap> {2,})(?P<text>\S.*)$")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
#: Rows in a run before they count as columns (one line with two spaces is prose) ...
MIN_ROWS = 2
#: ... unless its gap is this wide (a section with a single command).
WIDE_GAP = 3
#: The term column's widest: a longer term stands on a line of its own.
TERM_WIDTH = 40
#: The narrowest description column beside its terms; narrower, each row stacks (its description under it).
MIN_TEXT = 30
#: Where a stacked row's description starts, under its term.
STACK_INDENT = 4
#: `<name>` outside code, which markdown would take for an HTML tag and drop (`/help <command>`).
ANGLE = re.compile(r"<(?=[A-Za-z/!])")


def is_help(message: str) -> bool:
    return message.startswith(HELP_MESSAGES)


def _term_lines(term: str, width: int) -> list[str]:
    """A syntax too long for one line, broken only at spaces between its bracketed groups (never inside
    `[--from N]`), each further line indented two columns."""
    words: list[str] = []
    depth = 0
    for char in term:
        if char == " " and depth == 0:
            words.append("")
            continue
        depth += {"[": 1, "]": -1}.get(char, 0)
        words[-1:] = [(words[-1] if words else "") + char]
    lines = [""]
    for word in filter(None, words):
        if lines[-1].strip() and len(lines[-1]) + 1 + len(word) > width:
            lines.append("  ")
        lines[-1] += ("" if not lines[-1].strip() else " ") + word
    return lines


def _escape_angles(line: str) -> str:
    parts = line.split("`")
    for index in range(0, len(parts), 2):
        parts[index] = ANGLE.sub(r"\\<", parts[index])
    return "`".join(parts)


class _Rows:
    """Aligned `term  description` rows, laid out when the width is known."""

    def __init__(self, rows: list[re.Match[str]], term_width: int) -> None:
        self.indent = min(len(row.group("indent")) for row in rows)
        self.rows = [(row.group("term"), row.group("text")) for row in rows]
        self.term_width = max(term_width - self.indent, 1)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width - self.indent
        column = min(self.term_width, max(width * 2 // 5, 1))
        stacked = width - column - 2 < MIN_TEXT
        body: list[RenderableType] = []
        run: list[tuple[str, str]] = []
        for term, text in self.rows:
            if stacked or len(term) > column:
                if run:
                    body.append(self._grid(run, column))
                    run = []
                body.append(Text("\n".join(_term_lines(term, width)), style="bold"))
                body.append(self._grid([("", text)], STACK_INDENT - 2 if stacked else column))
            else:
                run.append((term, text))
        if run:
            body.append(self._grid(run, column))
        group = Group(*body)
        yield Padding(group, (0, 0, 0, self.indent)) if self.indent else group

    @staticmethod
    def _grid(rows: list[tuple[str, str]], column: int) -> Table:
        table = Table.grid(padding=(0, 2, 0, 0), pad_edge=False)
        table.add_column(style="bold", overflow="fold", width=max(column, 0))
        table.add_column(ratio=1, overflow="fold")
        for term, text in rows:
            table.add_row(Text(term), Text(text))
        return table


def without_title(content: str, title: str) -> str:
    """The help text without its first heading when that heading repeats the reply's message (`String Commands`
    over `## String Commands`): a person reads the title once."""
    lines = content.split("\n")
    first = next((index for index, line in enumerate(lines) if line.strip()), None)
    if first is not None and re.fullmatch(r" {0,3}#{1,6} +" + re.escape(title.strip()) + r" *#* *", lines[first]):
        return "\n".join(lines[first + 1 :]).lstrip("\n")
    return content


def help_renderable(content: str) -> RenderableType:
    """Prose as markdown, runs of aligned rows as grids, in their order."""
    parts: list[RenderableType] = []
    prose: list[str] = []
    rows: list[re.Match[str]] = []
    fence = ""
    terms = [len(m.group("indent") + m.group("term")) for m in map(ROW.match, content.split("\n")) if m]
    term_width = min(max(terms, default=0), TERM_WIDTH)

    def flush_rows() -> None:
        if len(rows) >= MIN_ROWS or (rows and len(rows[0].group("gap")) >= WIDE_GAP):
            flush_prose()
            parts.append(_Rows(rows, term_width))
        else:
            prose.extend(row.string for row in rows)
        rows.clear()

    def flush_prose() -> None:
        text = "\n".join(prose)
        body = text.strip("\n")
        if body:
            if parts and (text.startswith("\n") or body.startswith("#")):
                parts.append(Text(""))
            parts.append(Markdown(body, hyperlinks=False))
            if text.endswith("\n"):
                parts.append(Text(""))
        elif parts and text:
            parts.append(Text(""))
        prose.clear()

    for line in content.split("\n"):
        opened = FENCE.match(line)
        if fence or opened:
            flush_rows()
            prose.append(line)
            if opened and not fence:
                fence = opened.group(1)
            elif opened and opened.group(1).startswith(fence):
                fence = ""
            continue
        row = ROW.match(line)
        if row:
            rows.append(row)
            continue
        flush_rows()
        prose.append(_escape_angles(line))
    flush_rows()
    flush_prose()
    return Group(*parts)
