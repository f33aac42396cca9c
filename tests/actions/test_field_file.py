"""`/act --<field>-file path`: a flag's value from a workspace file, through the real program; confined like
every read, secrets denied, taken exactly as stored."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_stringsh
from tests.frontends.scripts import split_replies

PAGE = """# Page

```act.say
CLI printf '[%s]' {text}
  text: string (required) "What to say"
  count: number (optional)
```

```act.post
POST BASE/echo
  text: string (required)
```

```act.post.response
{Response.body.body}
```
"""

MESSAGE = "line one\nit's $HOME {a} @x\n"


def make(ws: Path, server: str = "http://127.0.0.1:9") -> None:
    (ws / "page.md").write_text(PAGE.replace("BASE", server))
    (ws / "notes").mkdir()
    (ws / "notes" / "msg.txt").write_text(MESSAGE)
    (ws / ".env").write_text("TOKEN=sk-secret\n")
    (ws / "bin.dat").write_bytes(b"\xff\xfe\x00")
    (ws / "n.txt").write_text("42")
    (ws / "big.txt").write_bytes(b"a" * 1048577)


def run(ws: Path, script: str) -> list[str]:
    proc = run_stringsh(["run", "--keep-going", "-"], ws, stdin="/open page.md\n" + script)
    return split_replies(proc.stdout.decode())[1:]


def test_field_value_from_a_file_as_stored(ws: Path) -> None:
    make(ws)
    replies = run(ws, "/act.say --text-file notes/msg.txt\n/set d = notes\n/act.say --text-file={d}/msg.txt\n")
    assert replies[0] == f"re: /act.say --text-file notes/msg.txt\nexit: 0 | cwd: {ws}\n---\n[{MESSAGE}]"
    assert replies[2] == f"re: /act.say --text-file={{d}}/msg.txt\nexit: 0 | cwd: {ws}\n---\n[{MESSAGE}]"


def test_http_body_carries_the_file_text(ws: Path, server: str) -> None:
    make(ws, server)
    replies = run(ws, "/act.post --text-file notes/msg.txt\n")
    assert json.loads(replies[0].split("\n", 1)[1]) == {"text": MESSAGE}


def test_refusals(ws: Path) -> None:
    make(ws)
    replies = run(
        ws,
        "/act.say --text-file .env\n/act.say --text-file bin.dat\n/act.say --text-file nope.txt\n"
        "/act.say --text-file big.txt\n"
        "/act.say --text-file ../outside.txt\n/act.say --text hi --text-file notes/msg.txt\n/act.say --text-file\n"
        "/act.say --count-file n.txt --text-file notes/msg.txt\n/act.say --text-file $HOME/x\n",
    )
    assert replies == [
        "re: /act.say --text-file .env\nERROR(SECRET_DENIED): Access to a secret file is denied: .env\n"
        "The policy's secret deny list covers this path.",
        "re: /act.say --text-file bin.dat\nERROR(BINARY_FILE): --text-file bin.dat: not UTF-8 text; nothing was sent.\n"
        "Give a text file, or a {name|base64file} body template for bytes.",
        "re: /act.say --text-file nope.txt\n"
        "ERROR(NOT_FOUND): --text-file cannot read nope.txt: File not found: nope.txt\n"
        "--text-file takes the path of a workspace file (/ls shows them).",
        "re: /act.say --text-file big.txt\nERROR(TOO_LARGE): --text-file big.txt is too large: 1048577 bytes "
        "(limit 1048576); nothing was sent.\nSend a smaller file, or a {text|base64file} body template.",
        "re: /act.say --text-file ../outside.txt\n"
        "ERROR(INVALID_PATH): Path escapes the workspace root: ../outside.txt\nUse a path inside the workspace.",
        "re: /act.say --text hi --text-file notes/msg.txt\n"
        "ERROR(INVALID_PAYLOAD): Give either --text or --text-file, not both.\n"
        "--text-file <path> sends the file's text as --text.",
        "re: /act.say --text-file\nERROR(INVALID_PAYLOAD): Flag --text-file requires a path.\n"
        "Usage: /act.say --text-file <path>",
        f"re: /act.say --count-file n.txt --text-file notes/msg.txt\nexit: 0 | cwd: {ws}\n---\n[{MESSAGE}]",
        "re: /act.say --text-file $HOME/x\nERROR(INVALID_PAYLOAD): $var cannot be used in command arguments. "
        "Use {var} for session variables, $var in action definitions.",
    ]
