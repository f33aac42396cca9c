"""`daemon --json` document replies carry `path` and `block`, so a client need not parse text."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_stringsh

README = "# Title\n\nintro\n\n## Setup\n\nsteps\n\n## Usage\n\nuse it\n"
FIELDS = ("path", "block", "exit", "cwd")


def ask(ws: Path, *cmds: str) -> list[dict[str, object]]:
    lines = [json.dumps({"id": n, "cmd": cmd}) for n, cmd in enumerate(cmds)]
    proc = run_stringsh(["daemon", "--json"], ws, stdin="\n".join(lines) + "\n")
    replies = sorted(map(json.loads, proc.stdout.decode().splitlines()), key=lambda reply: reply["id"])
    assert [reply["id"] for reply in replies] == list(range(len(cmds)))
    return replies


def fields(reply: dict[str, object]) -> dict[str, object]:
    return {key: reply[key] for key in FIELDS if key in reply}


def test_document_replies_carry_path_and_block(ws: Path) -> None:
    (ws / "README.md").write_text(README)
    (ws / "docs").mkdir()
    replies = ask(
        ws,
        "/open README.md",
        "/open README.md#setup",
        "/edit README.md#usage",
        "/edit README.md#usage\nnew use\n",
        "/source README.md",
        "/write docs/new.txt\nx\n",
        "/append docs/new.txt\ny\n",
        "/open docs/new.txt",
    )
    assert [fields(reply) for reply in replies] == [
        {"path": "README.md"},
        {"path": "README.md", "block": "setup"},
        {"path": "README.md", "block": "usage"},
        {"path": "README.md", "block": "usage"},
        {"path": "README.md"},
        {"path": "docs/new.txt"},
        {"path": "docs/new.txt"},
        {"path": "docs/new.txt"},
    ]
    assert [str(reply["content"]).split("\n")[1] for reply in replies[:4]] == [
        "Opened README.md",
        "Opened README.md#setup",
        "[editing: README.md#usage]",
        "Edited README.md#usage (11 lines): 1 line replaced by 1 line",
    ]


def test_paths_with_spaces_and_parentheses(ws: Path) -> None:
    (ws / "my notes (draft).md").write_text(README)
    replies = ask(
        ws,
        '/open "my notes (draft).md#usage"',
        '/edit "my notes (draft).md#setup"\nnew\n',
        '/write "new (1).txt"\nx\n',
    )
    assert [fields(reply) for reply in replies] == [
        {"path": "my notes (draft).md", "block": "usage"},
        {"path": "my notes (draft).md", "block": "setup"},
        {"path": "new (1).txt"},
    ]


def test_other_replies_have_no_document_fields(ws: Path) -> None:
    (ws / "README.md").write_text(README)
    replies = ask(ws, "/ls", "/open README.md#nosuch", "/open nothere.md", "/set a = 1", "!echo Opened README.md")
    assert [fields(reply) for reply in replies[:4]] == [{}, {}, {}, {}]
    assert fields(replies[4]) == {"exit": 0, "cwd": str(ws.resolve())}  # printed text is not a message line
    assert list(replies[0]) == ["id", "ok", "code", "topic", "content"]


def test_refusals_carry_no_document_fields(ws: Path) -> None:
    (ws / "README.md").write_text(README)
    replies = ask(ws, "/edit README.md#nosuch\nx\n", "/verify README.md#setup", "/write README.md\nx\n")
    assert [fields(reply) for reply in replies] == [{}, {"path": "README.md", "block": "setup"}, {}]
    assert [reply["code"] for reply in replies] == ["BLOCK_NOT_FOUND", None, "CONFLICT"]
