"""Help replies (`/help`, `/help <cmd>`, `/help errors`, `/help bash`) for people: markdown, and the aligned
`command   what it does` columns as a two-column grid whose cells wrap on their own, so a long description
continues under itself instead of at column 0.

The wire text stays what agents read (aligned plain text); this only decides how a terminal shows it.
"""

from __future__ import annotations

import re

from rich.console import Group, RenderableType
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
#: The term column's widest: longer terms wrap inside their cell.
TERM_WIDTH = 40
#: `<name>` outside code, which markdown would take for an HTML tag and drop (`/help <command>`).
ANGLE = re.compile(r"<(?=[A-Za-z/!])")


def is_help(message: str) -> bool:
    return message.startswith(HELP_MESSAGES)


def _escape_angles(line: str) -> str:
    parts = line.split("`")
    for index in range(0, len(parts), 2):
        parts[index] = ANGLE.sub(r"\\<", parts[index])
    return "`".join(parts)


def _grid(rows: list[re.Match[str]], term_width: int) -> RenderableType:
    indent = min(len(row.group("indent")) for row in rows)
    table = Table.grid(padding=(0, 2, 0, 0), pad_edge=False)
    table.add_column(style="bold", overflow="fold", width=max(term_width - indent, 1))
    table.add_column(ratio=1, overflow="fold")
    for row in rows:
        table.add_row(Text(row.group("term")), Text(row.group("text")))
    return Padding(table, (0, 0, 0, indent)) if indent else table


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
            parts.append(_grid(rows, term_width))
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
