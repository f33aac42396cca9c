"""Find `act.<id>` and `act.<id>.response` fences in a document and parse each action definition.

First line `METHOD target [-H "K: V"]… [-d '<body>']`; then indented lines: fields
`name[, -x]: type [(required|optional[, …])] ["description"] [= "default"]`, an optional `body:` block (lines
indented deeper than it), and an optional description line (`"text"` or `description: text`).
"""

from __future__ import annotations

import re

from stringsh.actions.model import TYPES, Action, Field
from stringsh.actions.shellscan import template_problems
from stringsh.render.sfmd import action_fences, action_head

FIELD = re.compile(
    r"^\s+(\w+)(?:,\s*-([A-Za-z]))?\s*:\s+(\w+)(?:\s+\(([^)]*)\))?(?:\s+\"([^\"]*)\")?"
    r"(?:\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|(\S+)))?\s*$"
)
HEADER = re.compile(r"-H\s+(?:\"([^\"]+)\"|'([^']+)')")
DATA = re.compile(r"-d\s+(?:'([^']*)'|\"([^\"]*)\")")
FLAG_START = re.compile(r"\s-[Hd]\s")
DESCRIPTION = re.compile(r"^\s+(?:\"([^\"]+)\"|description:\s*(.+))\s*$")
BODY = re.compile(r"^(\s+)body:\s*(.*)$")


def _first_line(method: str, rest: str) -> tuple[str, list[tuple[str, str]], str | None]:
    """Split an HTTP first line into target, `-H` headers and a `-d` body; CLI lines are kept whole."""
    if method == "CLI":
        return rest.strip(), [], None
    headers = []
    for match in HEADER.finditer(rest):
        key, sep, value = (match.group(1) or match.group(2)).partition(":")
        if sep:
            headers.append((key.strip(), value.strip()))
    data = DATA.search(rest)
    body = (data.group(1) if data.group(1) is not None else data.group(2)) if data else None
    cut = FLAG_START.search(rest)
    return (rest[: cut.start()] if cut else rest).strip(), headers, body


def _field(match: re.Match[str]) -> Field | None:
    name, short, kind, constraints, description = match.group(1, 2, 3, 4, 5)
    if kind not in TYPES:
        return None
    words = [word.strip().lower() for word in (constraints or "").split(",")]
    default = next((g for g in match.group(6, 7, 8) if g is not None), None)
    return Field(name, kind, words[0] == "required", description or "", default, short)


def parse_action(ident: str, lines: list[str], line_number: int) -> Action | None:
    """One action fence's content; None when the first line is not `METHOD target`."""
    head = action_head(lines)
    if not head:
        return None
    content = lines[next(i for i, line in enumerate(lines) if line.strip()) :]
    method = head.group(1).upper()
    uri, headers, body = _first_line(method, head.group(2))
    action = Action(ident, method, uri, headers, body=body, line=line_number)
    index = 1
    while index < len(content):
        line = content[index]
        index += 1
        if not line.strip():
            continue
        body_match = BODY.match(line)
        if body_match:
            depth = len(body_match.group(1).expandtabs(4))
            body_lines = [body_match.group(2)] if body_match.group(2).strip() else []
            while index < len(content):
                nxt = content[index]
                if nxt.strip() and len(nxt) - len(nxt.lstrip()) <= depth:
                    break
                body_lines.append(nxt)
                index += 1
            action.body = _dedent(body_lines).strip("\n")
            continue
        field_match = FIELD.match(line)
        parsed = _field(field_match) if field_match else None
        if parsed is not None:
            action.fields.append(parsed)
            continue
        described = DESCRIPTION.match(line)
        if described and not action.description:
            action.description = (described.group(1) or described.group(2)).strip().strip('"')
    if action.is_cli:
        action.problems = template_problems(action.uri, {f.name for f in action.fields})
    return action


def _dedent(lines: list[str]) -> str:
    widths = [len(line) - len(line.lstrip()) for line in lines if line.strip()]
    cut = min(widths, default=0)
    return "\n".join(line[cut:] for line in lines)


def indexed_fences(lines: list[str], fences: list[tuple[int, int, str, int]]) -> list[tuple[str, bool, list[str], int]]:
    """(id, is_response, content lines, 1-based line) of the action fences among a document index's fences
    (`(start, end, info, indent)`), found by the index's own rule (`sfmd.action_fences`)."""
    return [
        (ident, is_response, [line.rstrip("\r") for line in lines[start + 1 : end - 1]], start + 1)
        for ident, is_response, start, end in action_fences(lines, fences)
    ]


def parse_actions(source: str, fences: list[tuple[str, bool, list[str], int]] | None = None) -> list[Action]:
    """Every valid action of a document in order; the first definition of an id wins, templates attach by id.

    `fences` are the action fences when the caller has the document index already (`indexed_fences`); otherwise
    the source is indexed here, so there is one fence scanner for documents and actions alike.
    """
    if fences is None:
        from stringsh.render.index import build_index

        lines = source.split("\n")
        fences = indexed_fences(lines, build_index(source, lines).fences)
    actions: dict[str, Action] = {}
    templates: dict[str, str] = {}
    for ident, is_response, lines, number in fences:
        if is_response:
            templates.setdefault(ident, "\n".join(lines))
            continue
        action = parse_action(ident, lines, number)
        if action is not None and ident not in actions:
            actions[ident] = action
    for ident, template in templates.items():
        if ident in actions:
            actions[ident].response = template
    return list(actions.values())
