""""Did you mean": one close command, flag, path or block id in the hint line, and nothing for a wild guess or a
tie; and every `File not found`, `NOT_PERMITTED` and non-command refusal carries a hint line."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import stringsh
from stringsh.errors import DEFAULT_HINTS
from stringsh.suggest import closest


def reply(dispatcher, command: str) -> str:  # type: ignore[no-untyped-def]
    text: str = dispatcher.execute(command).text
    return text.split("\n", 1)[1]


@pytest.mark.parametrize(("command", "expected"), [
    ("/opne", "ERROR(COMMAND_UNSUPPORTED): Unknown command: /opne\n"
              "Did you mean /open? Use /help to see available commands."),
    ("/xyzzy", "ERROR(COMMAND_UNSUPPORTED): Unknown command: /xyzzy\nUse /help to see available commands."),
    ("/nope", "ERROR(COMMAND_UNSUPPORTED): Unknown command: /nope\nUse /help to see available commands."),
    ("ls", "ERROR(COMMAND_UNSUPPORTED): Commands must start with /.\nDid you mean /ls? Use /help for details."),
    ("opne README.md", "ERROR(COMMAND_UNSUPPORTED): Commands must start with /.\n"
                       "Did you mean /open README.md? Use /help for details."),
    ("hello there", "ERROR(COMMAND_UNSUPPORTED): Commands must start with /.\nUse /help for details."),
    ("/open READNE.md", "ERROR(NOT_FOUND): File not found: READNE.md\n"
                        "Did you mean README.md? /ls shows what is there."),
    ("/open srcc/main.py", "ERROR(NOT_FOUND): File not found: srcc/main.py\n"
                           "Did you mean src/main.py? /ls shows what is there."),
    ("/stat src/mian.py", "ERROR(NOT_FOUND): File not found: src/mian.py\n"
                          "Did you mean src/main.py? /ls src shows what is there."),
    ("/open .evn", "ERROR(NOT_FOUND): File not found: .evn\n/ls shows what is there."),  # never a secret's name
    ("/open zzz", "ERROR(NOT_FOUND): File not found: zzz\n/ls shows what is there."),
    ("/open README.md --form 2", "ERROR(INVALID_PAYLOAD): Unknown flag for /open: --form\nDid you mean --from? "
                                 "Flags of /open: --from, --to, --plain. "
                                 "A path that starts with - goes after --: /open -- --form"),
    ("/open README.md#setpu", "ERROR(BLOCK_NOT_FOUND): Block not found: #setpu in README.md\n"
                              "Did you mean #setup? Available blocks: readme, setup, usage"),
    ("/open README.md#u", "ERROR(BLOCK_NOT_FOUND): Block not found: #u in README.md\n"
                          "Available blocks: readme, setup, usage"),
])
def test_the_closest_name_is_suggested_only_when_close(ws: Path, dispatcher, command: str, expected: str) -> None:
    (ws / "README.md").write_text("# Readme\n\n## Setup\n\nx\n\n## Usage\n\ny\n")
    (ws / "src").mkdir()
    (ws / "src" / "main.py").write_text("")
    (ws / ".env").write_text("TOKEN=1\n")
    assert reply(dispatcher, command) == expected


def test_a_tie_or_a_far_name_suggests_nothing() -> None:
    assert closest("changes-", [f"changes-{n}" for n in range(10)]) is None
    assert closest("changes-99", [f"changes-{n}" for n in range(68)]) is None  # changes-9, -19, -29 …: a tie
    assert closest("changes-99", ["changes-9", "changes-100"]) == "changes-9"
    assert closest("open", ["open", "opne"]) is None  # the word itself is no typo
    assert closest("nope", ["open", "ls"]) is None  # two edits in four letters: not a typo of it


HINTED = ("NOT_FOUND", "NOT_PERMITTED", "COMMAND_UNSUPPORTED")
#: The JSON tools reply with a message field only (their own schema), so their refusals carry no hint line.
NO_HINT_LINE = {"dialects/tools/files.py"}


def test_every_not_found_and_not_permitted_site_gives_a_hint() -> None:
    package = Path(stringsh.__file__).parent
    missing = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "StringError" and node.args):
                continue
            code = node.args[0].value if isinstance(node.args[0], ast.Constant) else None
            hinted = len(node.args) >= 3 or any(k.arg == "hint" for k in node.keywords) or code in DEFAULT_HINTS
            if code in HINTED and not hinted and rel not in NO_HINT_LINE:
                missing.append(f"{rel}:{node.lineno}")
    assert missing == []
