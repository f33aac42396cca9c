"""A quoted value spanning lines keeps every line, or the request is refused as incomplete; one
parser for run, -c, the plain loop and both daemon modes."""

from __future__ import annotations

import json
from pathlib import Path

from stringsh.protocol.request import is_complete, parse_request
from tests.conftest import run_stringsh
from tests.frontends.scripts import split_replies

PAGE = "# T\n\n```act.echo\nCLI printf '%s|' {c}\n  c, -c: string (required)\n```\n"
QUOTED = '/act.echo -c "alpha\nbeta\ngamma"'
UNTERMINATED = (
    "ERROR(INVALID_PAYLOAD): Unterminated quote: a quoted value on the first line never closes before the end of "
    "{end}; the command was not run.\nClose the quote: a quoted value may span lines, and keeps every one."
)


def ran(ws: Path) -> str:
    return f're: /act.echo -c "alpha...\nexit: 0 | cwd: {ws}\n---\nalpha\nbeta\ngamma|'


def listing(ws: Path) -> str:
    return "re: /ls\nListing ./\n---\n  a.md"


def test_a_header_with_an_open_quote_is_incomplete() -> None:
    assert not is_complete('/act.echo -c "alpha')
    assert not is_complete('/act.echo -c "alpha\nbeta')
    assert is_complete('/act.echo -c "alpha\nbeta"')
    assert is_complete('[7] //ACT.echo -c "a\nb"') and not is_complete('[7] /act -c "a')
    assert is_complete("/write a.txt it's\n")  # free text: a quote is a character
    assert is_complete('/ls "a')  # refused at once by the argument splitter, never waits for more
    assert is_complete('!echo "a', shell_line=True)
    assert not is_complete('/act.echo -c "a\nb" <<EOF\nbody')
    request = parse_request('/act.echo -c "a\nb" <<EOF\nbody\nEOF\n')
    assert (request.header, request.body) == ('/act.echo -c "a\nb"', "body\n")


def test_run_keeps_every_line_of_a_quoted_value(ws: Path) -> None:
    (ws / "a.md").write_text(PAGE)
    proc = run_stringsh(["run", "-"], ws, stdin=f"/open a.md\n{QUOTED}\n/ls\n")
    assert proc.returncode == 0, proc.stdout
    assert split_replies(proc.stdout.decode())[1:] == [ran(ws), listing(ws)]


def test_run_refuses_a_quote_that_never_closes(ws: Path) -> None:
    (ws / "a.md").write_text(PAGE)
    proc = run_stringsh(["run", "--keep-going", "-"], ws, stdin='/open a.md\n/act.echo -c "alpha\n/ls\n')
    assert proc.returncode == 1
    assert split_replies(proc.stdout.decode())[1:] == [
        're: /act.echo -c "alpha\n' + UNTERMINATED.format(end="input")
    ]
    assert "<stdin>:2: /act.echo -c \"alpha (INVALID_PAYLOAD)" in proc.stderr.decode()


def test_other_commands_never_swallow_the_next_line(ws: Path) -> None:
    proc = run_stringsh(["run", "--keep-going", "-"], ws, stdin="/write a.md it's mine\n/ls \"a\n/ls\n")
    assert (ws / "a.md").read_text() == "it's mine\n"
    assert split_replies(proc.stdout.decode())[1:] == [
        're: /ls "a\nERROR(INVALID_PAYLOAD): Cannot parse arguments: No closing quotation.\n'
        "Close the quote, or escape it with a backslash.",
        listing(ws),
    ]


def test_dash_c_refuses_a_quote_that_never_closes(ws: Path) -> None:
    """-c parses the whole text as the JSON daemon does (its positive case is in the JSON test below)."""
    cut = run_stringsh(["-c", '/act.echo -c "alpha\nbeta'], ws)
    assert cut.returncode == 1
    assert cut.stdout.decode() == 're: /act.echo -c "alpha\n' + UNTERMINATED.format(end="the request") + "\n"


def test_plain_loop_keeps_every_line(ws: Path) -> None:
    (ws / "a.md").write_text(PAGE)
    proc = run_stringsh(["--plain"], ws, stdin=f"/open a.md\n{QUOTED}\n/ls\n")
    marked = [reply.removesuffix("\n</𝒞>") for reply in split_replies(proc.stdout.decode())]  # piped: end marks
    assert marked[1:] == [ran(ws), listing(ws)]


def test_daemon_keeps_every_line(ws: Path) -> None:
    (ws / "a.md").write_text(PAGE)
    proc = run_stringsh(["daemon"], ws, stdin=f"/open a.md\n{QUOTED}\n/ls\n")
    out = proc.stdout.decode()
    assert f"<𝒞=string:main>\n{ran(ws)}\n</𝒞>\n<𝒞=string:main>\n{listing(ws)}\n</𝒞>\n" in out


def test_json_daemon_keeps_every_line_or_refuses(ws: Path) -> None:
    (ws / "a.md").write_text(PAGE)
    lines = [
        {"id": 1, "cmd": "/open a.md"},
        {"id": 2, "cmd": QUOTED},
        {"id": 3, "cmd": '/act.echo -c "alpha\nbeta'},
    ]
    proc = run_stringsh(["daemon", "--json"], ws, stdin="".join(json.dumps(line) + "\n" for line in lines))
    replies = {reply["id"]: reply for reply in map(json.loads, proc.stdout.decode().splitlines())}
    assert replies[2]["content"] == ran(ws).replace("re: ", "re: [2] ", 1)
    assert (replies[3]["ok"], replies[3]["content"]) == (
        False, 're: [3] /act.echo -c "alpha\n' + UNTERMINATED.format(end="the request")
    )
