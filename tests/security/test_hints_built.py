"""Every command a reply suggests is built by `stringsh/hints.py`, never pasted: no f-string in the code puts a
value after a `!program` or after a String command's name without quoting it (`shell_hint`, `command_word`).

The test reads the source (the hints are f-strings spread over the engine, the commands and the documents), so a
new hint that pastes a value fails here before any hostile file name reaches it; test_hint_quoting.py provokes
each hint through the real program and runs what it suggests."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import stringsh

SOURCE = Path(stringsh.__file__).parent
#: A shell command a hint suggests, still open at the end of a literal part: `(!iconv -f X `, `: !git restore `.
SHELL_OPEN = re.compile(r"(?:^|[\s(])![a-z][\w.-]*(?: [^()\n]*)?$")
#: A String command whose next word is a value: `/open `, `/edit --force `, `/mv <value> ` (\0 marks a value).
COMMAND_OPEN = re.compile(r"(?:^|[\s(])/(?:open|ls|edit|mv|replace|grep|glob|cd|write|append|rm|cp)"
                          r"(?: (?:--?[\w-]+|\0\S*))* $")
#: Numbers: `--from {n}`.
NUMBER_OPTION = re.compile(r"--(?:from|to) $")
#: Expressions that are a command's options, not values (`--after`, `--final-newline`).
OPTIONS = {"where", "_final_name(final)"}
QUOTERS = {"shell_hint", "shell_word", "command_word"}


def _quoted(value: ast.FormattedValue) -> bool:
    call = value.value
    return isinstance(call, ast.Call) and getattr(call.func, "id", getattr(call.func, "attr", None)) in QUOTERS


def pasted(node: ast.JoinedStr) -> list[str]:
    """Each value of the f-string that follows an open command without being quoted, with the text before it."""
    found, text = [], ""
    for part in node.values:
        if isinstance(part, ast.Constant):
            text += str(part.value)
            continue
        assert isinstance(part, ast.FormattedValue)
        tail = text.rsplit("\n", 1)[-1]
        opened = SHELL_OPEN.search(tail) or (COMMAND_OPEN.search(tail) and not NUMBER_OPTION.search(tail))
        if opened and not _quoted(part) and ast.unparse(part.value) not in OPTIONS:
            found.append(f"{tail}{{{ast.unparse(part.value)}}}".replace("\0", "{…}"))
        text += "\0"  # a value
    return found


def pasted_values() -> list[str]:
    """`file:line: text` of each f-string value in the code that follows an open command without being quoted."""
    return [f"{path.relative_to(SOURCE.parent)}:{node.lineno}: {hit}"
            for path in sorted(SOURCE.rglob("*.py")) for node in ast.walk(ast.parse(path.read_text(), str(path)))
            if isinstance(node, ast.JoinedStr) for hit in pasted(node)]


def test_no_hint_pastes_a_value_into_a_command() -> None:
    assert pasted_values() == []


def test_the_check_finds_a_pasted_value() -> None:
    """The scanner itself: the pasted forms the issue found are flagged, the built ones are not."""
    pasted_hint = 'f"convert it (!iconv -f LATIN1 -t UTF-8 {rel} -o {rel}.utf8)"'
    built = "f\"convert it ({shell_hint(ICONV, source='LATIN1', rel=rel, out=rel + '.utf8')})\""
    command = 'f"Run /open {rel} again"'
    quoted = 'f"Run /open {command_word(rel)} --from {n}"'
    sources = (pasted_hint, built, command, quoted)
    assert [pasted(ast.parse(source).body[0].value) for source in sources] == [  # type: ignore[attr-defined]
        ["convert it (!iconv -f LATIN1 -t UTF-8 {rel}", "convert it (!iconv -f LATIN1 -t UTF-8 {…} -o {rel}"],
        [],
        ["Run /open {rel}"],
        [],
    ]
