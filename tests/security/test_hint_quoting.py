"""Hints are built, not pasted: each reply that suggests a shell command for a file is
provoked through the real program on hostile file names, the suggested `!command` is taken from the reply as an
agent would take it, and run in real bash in the workspace. No name runs code (no file appears but the one the hint
says it makes) and each command does what its hint says.

The hints: a Latin-1 and a cp1252 file's view (`!iconv … -o <file>.utf8`), a character such a file cannot hold
(the same conversion), an append to a file that is not UTF-8, a UTF-16 file past the read limit (`!iconv … | head`)
and a secret staged for `/git commit` (`!git restore --staged -- <file>`); test_hints_built.py checks that no other
hint in the code pastes a value."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from stringsh.escapes import shown_name
from stringsh.hints import command_word
from tests.commands.gitrepo import ENV, git, make_repo
from tests.conftest import script_replies
from tests.dialects.tools.client import tools

#: Names a String Commands request can name (quoted as the program's own hints quote them, `command_word`).
TYPED = [
    "r;touch${IFS}PWNED;x.txt",
    "$(touch PWNED).txt",
    "`touch PWNED`.txt",
    "two words.txt",
    "it's \"q\" \\.txt",
    "-o PWNED.txt",
]
#: Names no request line can hold (a newline, ESC and BEL): named through the JSON tools, whose paths are JSON.
UNTYPABLE = ["nl\nname.txt", "esc\x1b]52;c;UFdORUQ=\x07.txt"]
HOSTILE = TYPED + UNTYPABLE


def suggested(reply: str) -> list[str]:
    """Every `!command` with arguments a reply suggests, read as an agent would: from `!` to the `)` or the line
    end outside quotes (`'…'`, `"…"`, `$'…'`); a bare `(!iconv)` names no file and is left out."""
    commands = []
    for found in re.finditer(r"(?<=[(\s])!(?=[a-z])", reply):
        i, quote, out = found.end(), "", []
        while i < len(reply):
            char = reply[i]
            if quote in ("$'", '"') and char == "\\":
                out.append(reply[i : i + 2])
                i += 2
                continue
            if quote and char == quote[-1]:
                quote = ""
            elif not quote and char in "'\"":
                quote = char
            elif not quote and reply.startswith("$'", i):
                quote, char = "$'", "$'"
                i += 1
            elif not quote and char in ")\n":
                break
            out.append(char)
            i += 1
        command = "".join(out).rstrip(".")
        if " " in command:
            commands.append(command)
    return commands


def files(ws: Path) -> set[str]:
    return {str(path.relative_to(ws)) for path in ws.rglob("*") if ".git" not in path.parts}


def run_hint(ws: Path, command: str) -> subprocess.CompletedProcess[bytes]:
    """The command in real bash, in the workspace, as the shell would run it (`!` taken off)."""
    return subprocess.run(["bash", "-c", command], cwd=ws, capture_output=True, stdin=subprocess.DEVNULL,
                          timeout=60, env=ENV, check=False)


def assert_converts(ws: Path, name: str, reply: str, source: str, text: str) -> None:
    """The reply suggests exactly one conversion; run, it writes `<name>.utf8` (UTF-8 `text`) and nothing else."""
    (command,) = suggested(reply)
    before = files(ws)
    done = run_hint(ws, command)
    assert done.returncode == 0, (command, done.stderr)
    assert files(ws) - before == {f"{name}.utf8"}, command
    assert (ws / f"{name}.utf8").read_text("utf-8") == text
    assert command.startswith(f"iconv -f {source} -t UTF-8 ")


@pytest.mark.parametrize("name", TYPED, ids=range(len(TYPED)))
def test_a_legacy_files_conversion_hints_are_safe_to_run(ws: Path, name: str) -> None:
    """A Latin-1 file's view, a cp1252 file's view, a character Latin-1 cannot hold, an append to a file that is not
    UTF-8: each hint names the file as one quoted word."""
    latin, cp1252, append = f"l-{name}", f"w-{name}", f"a-{name}"
    (ws / latin).write_bytes(b"caf\xe9\n")
    (ws / cp1252).write_bytes(b"\x93q\x94\n")
    (ws / append).write_bytes(b"caf\xe9 " * 20_000 + b"\n")  # past the size an append reads whole
    replies = script_replies(ws, "\n".join([
        f"/open {command_word(latin)}",
        f"/open {command_word(cp1252)}",
        f"/replace {command_word(latin)}:L1 <<X\nΩ\nX",
        f"/append {command_word(append)} <<X\nmore\nX",
    ]) + "\n")
    assert len(replies) == 4, replies
    assert_converts(ws, latin, replies[0], "LATIN1", "café\n")
    assert_converts(ws, cp1252, replies[1], "CP1252", "\u201cq\u201d\n")
    assert "ERROR(ENCODING)" in replies[2]
    (ws / f"{latin}.utf8").unlink()
    assert_converts(ws, latin, replies[2], "LATIN1", "café\n")
    assert "ERROR(ENCODING)" in replies[3], replies[3]
    assert_converts(ws, append, replies[3], "LATIN1", "café " * 20_000 + "\n")
    assert not (ws / "PWNED").exists() and not (ws.parent / "PWNED").exists()


@pytest.mark.parametrize("name", TYPED, ids=range(len(TYPED)))
def test_a_utf16_file_past_the_read_limit_hint_reads_it(ws: Path, name: str) -> None:
    (ws / "stringsh.toml").write_text("[limits]\nmax_read_bytes = 1000\n")  # narrows: a workspace may set it
    (ws / name).write_bytes("\ufeff".encode("utf-16-le") + "line\n".encode("utf-16-le") * 400)
    (reply,) = script_replies(ws, f"/open {command_word(name)}\n")
    assert "ERROR(TOO_LARGE)" in reply
    (command,) = suggested(reply)
    before = files(ws)
    done = run_hint(ws, command)
    assert done.returncode == 0, (command, done.stderr)
    assert done.stdout.decode("utf-8").replace("\ufeff", "") == "line\n" * 10
    assert files(ws) == before


@pytest.mark.parametrize("name", UNTYPABLE, ids=range(len(UNTYPABLE)))
def test_a_name_no_request_can_hold_gets_a_hint_bash_reads(ws: Path, name: str) -> None:
    """Named through the JSON tools, a Latin-1 file with a newline or ESC in its name: the hint writes the name in
    bash's `$'…'` form (one line, no raw control) and running it converts that very file."""
    (ws / name).write_bytes(b"caf\xe9\n")
    (edit,) = tools(ws, {"id": 1, "tool": "edit", "args": {"file_path": name, "old_string": "caf", "new_string": "Ω"}})
    assert edit["code"] == "ENCODING" and "\n" not in edit["hint"] and "\x1b" not in edit["hint"], edit
    assert edit["hint"].startswith(shown_name(name) + " is Latin-1 and stays Latin-1")
    assert_converts(ws, name, edit["hint"], "LATIN1", "café\n")
    assert not (ws / "PWNED").exists()


@pytest.mark.needs("git")
@pytest.mark.parametrize("name", HOSTILE, ids=range(len(HOSTILE)))
def test_a_staged_secrets_unstage_hint_unstages_it(ws: Path, name: str) -> None:
    secret = f".env.{name}"  # `.env.*` is a built-in secret
    make_repo(ws)
    (ws / "a.txt").write_text("b\n")
    (ws / secret).write_text("KEY=1\n")
    git(ws, "add", "-f", "--", "a.txt", secret)
    (reply,) = script_replies(ws, "/git commit -m one\n")
    assert "ERROR(SECRET_DENIED)" in reply
    (command,) = suggested(reply)
    assert command.startswith("git restore --staged -- ")
    before = files(ws)
    done = run_hint(ws, command)
    assert done.returncode == 0, (command, done.stderr)
    assert git(ws, "diff", "--cached", "--name-only", "-z").split("\0") == ["a.txt", ""]
    assert files(ws) == before and not (ws.parent / "PWNED").exists()
