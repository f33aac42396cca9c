"""The structure of a String Command's reply, read back from its text as the client gets it (masked and escaped),
for the command tools' `structuredContent` (outputs.py says each shape). The reply formats are the commands'
contract (their tests hold them byte for byte), so reading them here keeps the commands as they are; a line that
does not have a row's form is not a row (a summary, a note, a hint). Free of the SDK."""

from __future__ import annotations

import re
from typing import Any

#: A path as a reply shows it: quoted (a name that is not UTF-8 or holds a control) or plain, up to its `:`.
_PATH = r'(?P<path>"(?:[^"\\\n]|\\.)*"|[^\n]+?)'
GREP_LINE = re.compile(_PATH + r"(?P<sep>[:-])(?P<line>\d+)(?P=sep) (?P<text>.*)")
SYMBOL_ROW = re.compile(r"(?P<handle>@\w+) " + _PATH + r":L(?P<start>\d+)-L(?P<end>\d+) +(?P<kind>\S+) +#(?P<id>\S.*)")
REFERENCE_ROW = re.compile(_PATH + r":(?P<line>\d+):(?P<column>\d+): (?P<role>[a-z]+) "
                                   r"(?:in #(?P<container>\S+)|at top level): (?P<text>.*)")
DEFINITION_ROW = re.compile(_PATH + r":(?P<line>\d+):(?P<column>\d+): (?P<kind>\S+) #(?P<id>\S+)")
CHANGE_ROW = re.compile(r"(?P<id>\d+) +(?P<time>\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) +(?P<topic>\S+) +(?P<summary>\S.*)")
BASH_STATUS = re.compile(r"exit: (?P<code>-?\d+) \| cwd: (?P<cwd>.*)")
NO_OUTPUT = "(no output)"


def body(text: str) -> list[str]:
    """The lines after the reply's `---` (its content); none for a reply without one."""
    _, sep, content = text.partition("\n---\n")
    return content.split("\n") if sep else []


def grep_lines(text: str) -> dict[str, Any]:
    lines = []
    for row in body(text):
        match = GREP_LINE.fullmatch(row)
        if match:
            lines.append({"path": match["path"], "line": int(match["line"]), "text": match["text"],
                          "match": match["sep"] == ":"})
    return {"lines": lines, "matches": sum(1 for line in lines if line["match"])}


def symbols(text: str) -> dict[str, Any]:
    rows = []
    for row in body(text):
        match = SYMBOL_ROW.fullmatch(row.rstrip())
        if match:
            rows.append({"handle": match["handle"], "path": match["path"], "startLine": int(match["start"]),
                         "endLine": int(match["end"]), "kind": match["kind"], "id": match["id"],
                         "target": f"{match['path']}#{match['id']}"})
    return {"symbols": rows}


def references(text: str) -> dict[str, Any]:
    rows = []
    for row in body(text):
        match = REFERENCE_ROW.fullmatch(row)
        if match:
            rows.append({"path": match["path"], "line": int(match["line"]), "column": int(match["column"]),
                         "role": match["role"], "container": match["container"], "text": match["text"]})
    return {"references": rows}


def definitions(text: str) -> dict[str, Any]:
    rows = []
    for row in body(text):
        match = DEFINITION_ROW.fullmatch(row)
        if match:
            rows.append({"path": match["path"], "line": int(match["line"]), "column": int(match["column"]),
                         "kind": match["kind"], "id": match["id"], "target": f"{match['path']}#{match['id']}"})
    return {"definitions": rows}


def changes(text: str) -> dict[str, Any]:
    """The rows of a `/changes` list; nothing for one change set shown as a diff (its first line says `Change`)."""
    if text.partition("\n")[2].startswith("Change "):
        return {}
    rows = []
    for row in body(text):
        match = CHANGE_ROW.fullmatch(row)
        if match:
            rows.append({"id": int(match["id"]), "time": match["time"], "topic": match["topic"],
                         "summary": match["summary"]})
    return {"changes": rows}


def shell(text: str) -> dict[str, Any]:
    """`exit: N | cwd: /abs`, then the output after `---` (`(no output)` for none)."""
    status, _, rest = text.partition("\n")[2].partition("\n")
    match = BASH_STATUS.fullmatch(status)
    if match is None:
        return {"exitCode": 0, "cwd": "", "output": rest}
    output = rest.removeprefix("---\n") if rest.startswith("---\n") else rest
    return {"exitCode": int(match["code"]), "cwd": match["cwd"], "output": "" if output == NO_OUTPUT else output}
