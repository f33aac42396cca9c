"""Help text wrapped to a terminal's width for the plain front ends (`-c`, `run`, the plain loop).

The wire text of help replies is unwrapped (agents and every dialect read the same bytes); a person reading
`stringsh -c /help` in an 80-column terminal should not get 170-character lines. Columns (`term   text`) continue
under their text, list items under their text, prose under its indent; code (fenced or indented examples) is
never wrapped.
"""

from __future__ import annotations

import os
import re
import textwrap

#: Messages of the replies whose content is help text (as `render/helpview.py` reads them).
HELP_MESSAGES = ("Help: ", "Bash Session", "String Commands", "Error Codes", "OPERATOR_CMD Blocks")
#: The width of a terminal that reports none: the same on every machine.
DEFAULT_WIDTH = 100
MIN_WIDTH = 40
ROW = re.compile(r"^(?P<lead> *\S(?:.*?\S)?? {2,})(?P<text>\S.*)$")
ITEM = re.compile(r"^(?P<lead> *(?:[-*+]|\d+\.) +)\S")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def terminal_width() -> int | None:
    """COLUMNS, else the width of the terminal stdout is (DEFAULT_WIDTH when it reports none), else None: output
    to a pipe or file (a program reading it) keeps the help text as every dialect sends it."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return max(MIN_WIDTH, int(columns))
    if not os.isatty(1):
        return None
    try:
        return max(MIN_WIDTH, os.get_terminal_size(1).columns or DEFAULT_WIDTH)
    except OSError:
        return DEFAULT_WIDTH


def is_help_reply(text: str) -> bool:
    """A `/help` reply: its message line (after `re:`) is one of HELP_MESSAGES."""
    lines = text.split("\n", 2)
    return len(lines) > 1 and lines[0].startswith("re: ") and lines[1].startswith(HELP_MESSAGES)


def wrap_help(text: str, width: int | None = None) -> str:
    """`text` with every line past `width` wrapped: a paragraph of prose is reflowed whole (the pages are
    hard-wrapped wider), a column row or list item continues under its text; code lines are kept whole."""
    width = width or terminal_width()
    if width is None:
        return text
    out: list[str] = []
    prose: list[str] = []
    in_fence = False

    def flush() -> None:
        if prose:
            out.extend(_reflow(prose, width) if any(len(p) > width for p in prose) else prose)
            prose.clear()

    head, sep, body = text.partition("\n---\n")  # the `re:` and message lines stay as they are
    if not sep:
        head, body = "", text
    out.extend([*head.split("\n"), "---"] if sep else [])
    for line in body.split("\n"):
        if FENCE.match(line):
            flush()
            in_fence = not in_fence
            out.append(line)
        elif in_fence or not line.strip() or line.startswith(("    ", "#", "|", "re: ")) or line == "---":
            flush()
            out.append(line)
        elif ROW.match(line) and not prose:
            out.extend(_wrap_line(line, width) if len(line) > width else [line])
        else:
            if ITEM.match(line):
                flush()
            prose.append(line)
    flush()
    return "\n".join(out)


def _reflow(lines: list[str], width: int) -> list[str]:
    """A paragraph (or list item) as one run of words, wrapped to `width`."""
    joined = " ".join([lines[0].rstrip(), *(p.strip() for p in lines[1:])])
    return _wrap_line(joined, width) if len(joined) > width else [joined]


def _wrap_line(line: str, width: int) -> list[str]:
    """One long line: a column row's or list item's text continues under itself; a row whose term column is
    wider than half the width closes its gap to two spaces and continues four spaces in."""
    indent = line[: len(line) - len(line.lstrip())]
    row = ROW.match(line) or ITEM.match(line)
    lead = row.group("lead") if row else indent
    if len(lead) > width // 2:
        line = f"{lead.rstrip()}  {line[len(lead):]}" if row else line
        lead, hang = indent, indent + "    "
    else:
        hang = " " * len(lead)
    words = line[len(lead):]
    first = _wrap(words, width - len(lead))[0]
    rest = words[len(first):].strip()
    return [lead + first, *(hang + part for part in (_wrap(rest, width - len(hang)) if rest else []))]


def _wrap(text: str, width: int) -> list[str]:
    return textwrap.wrap(text, width=max(MIN_WIDTH // 2, width), break_long_words=False,
                         break_on_hyphens=False) or [text]
