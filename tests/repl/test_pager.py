"""A reply taller than the screen goes through a pager in the REPL (stringsh/repl/pager.py), at 80x24 in a real pty
read through pyte; never on pipes, `-c` or `run`."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from stringsh.repl.pager import LESS_FLAGS, pager_command
from tests.conftest import run_stringsh
from tests.repl.harness import Terminal

ENTER = "\r"
BIG = "".join(f"line {number:03d}\n" for number in range(1, 201))
RULE = "─" * 80
#: What a pager that leaves a mark writes, so a test can see whether it ran.
MARKING_PAGER = "printf 'PAGED by %s|\\n' \"two words\" $HOME"


@pytest.fixture
def workspace(ws: Path) -> Path:
    (ws / "big.txt").write_text(BIG)
    (ws / "short.txt").write_text("one\ntwo\n")
    return ws


def start(workspace: Path, tmp_path: Path, **env: str) -> Terminal:
    """The REPL at 80x24, its toolbar drawn (so the prompt takes keys)."""
    term = Terminal([], workspace, {"STRINGSH_HISTORY": str(tmp_path / "history"), "HOME": str(tmp_path), **env},
                    size=(80, 24))
    term.wait_for(lambda screen: "Ctrl-D quit" in screen)
    return term


@pytest.fixture
def term(workspace: Path, tmp_path: Path) -> Iterator[Terminal]:
    terminal = start(workspace, tmp_path)
    try:
        yield terminal
    finally:
        terminal.close()


def at_prompt(screen: str) -> bool:
    """The toolbar on the last line and an empty prompt above the blank lines before it."""
    lines = screen.splitlines()
    prompts = [line for line in lines if line.startswith("›")]
    return lines[-1].startswith(" main ") and bool(prompts) and prompts[-1] == "›"


def in_pager(screen: str) -> bool:
    return screen.splitlines()[-1] == ":"  # less's prompt: one screen shown, more to come


@pytest.mark.needs("less")
def test_a_tall_open_is_paged_q_returns_to_an_empty_prompt_and_the_next_command_works(term: Terminal) -> None:
    term.send("/open big.txt" + ENTER)
    screen = term.wait_for(in_pager)
    assert screen.splitlines() == [
        "Opened big.txt", RULE, *(f"line {n:03d}" for n in range(1, 22)), ":"]  # no `re:` line: the request is above
    term.send("q")
    screen = term.wait_for(at_prompt)
    assert "line 021" in screen and "line 022" not in screen  # the page stays on screen (-X), nothing more
    term.send("/open short.txt" + ENTER)  # short: printed, no pager
    screen = term.wait_for(lambda s: "Opened short.txt" in s and at_prompt(s))
    lines = screen.splitlines()
    assert lines[lines.index("Opened short.txt") + 1:][:4] == [RULE, "one", "two", ""] and ":" not in lines


def leave_pager(term: Terminal) -> None:
    """q until less has left, then back at an empty prompt. less drops the keys typed before it has handled a ^C, so
    a q sent right after one may be lost (it failed once so in a CI simulation); a q that reaches the prompt after
    all is wiped by Ctrl-U."""
    for attempt in range(10):
        if attempt % 3 == 2:  # less, still between its ^C and its next key, has dropped them: ^C again, then q
            term.send("\x03")
        term.send("q")
        try:
            term.wait_for(lambda screen: not in_pager(screen), timeout=2.0)
            break
        except AssertionError:
            continue
    term.send("\x15")
    term.wait_for(at_prompt)


@pytest.mark.needs("less")
def test_ctrl_c_in_the_pager_belongs_to_it(term: Terminal) -> None:
    term.send("/open big.txt" + ENTER)
    term.wait_for(in_pager)
    term.send("\x03")  # less takes it (it stops reading more of the reply); stringsh neither dies nor kills it
    term.wait_for(in_pager)
    leave_pager(term)  # the pager still reads keys: q leaves it
    term.send("/open short.txt" + ENTER)
    term.wait_for(lambda s: "Opened short.txt" in s and at_prompt(s))


@pytest.mark.needs("less")
def test_a_tall_changes_listing_is_paged(workspace: Path, tmp_path: Path) -> None:
    script = "".join(f"/write notes/n{number:02d}.txt <<EOF\nnote {number}\nEOF\n" for number in range(30))
    (tmp_path / "writes.str").write_text(script)
    assert run_stringsh(["run", str(tmp_path / "writes.str")], cwd=workspace).returncode == 0
    state = {name: os.environ[name] for name in ("XDG_STATE_HOME", "XDG_CONFIG_HOME", "STRINGSH_CONFIG_DIR")}
    term = start(workspace, tmp_path, **state)  # the same state folder: its journal
    try:
        term.send("/changes" + ENTER)
        screen = term.wait_for(in_pager)
        assert screen.splitlines()[0].startswith("Changes")
        term.send("q")
        term.wait_for(at_prompt)
    finally:
        term.close()


def test_the_pager_is_turned_off_by_an_empty_stringsh_pager(workspace: Path, tmp_path: Path) -> None:
    term = start(workspace, tmp_path, STRINGSH_PAGER="", PAGER=MARKING_PAGER)
    try:
        term.send("/open big.txt" + ENTER)
        screen = term.wait_for(lambda s: "line 200" in s and at_prompt(s))
        assert b"PAGED" not in term.transcript and "line 190" in screen
    finally:
        term.close()


def test_pager_is_split_as_words_and_run_without_a_shell(workspace: Path, tmp_path: Path) -> None:
    term = start(workspace, tmp_path, PAGER=MARKING_PAGER)
    try:
        term.send("/open big.txt" + ENTER)
        screen = term.wait_for(lambda s: "PAGED" in s and at_prompt(s))
        lines = screen.splitlines()  # quotes taken as shlex takes them, `$HOME` not expanded
        assert lines[lines.index("› /open big.txt") + 1:][:3] == ["PAGED by two words|", "PAGED by $HOME|", "›"]
        assert b"line 200" not in term.transcript  # the pager had the reply, not the screen
    finally:
        term.close()


def test_a_pager_that_cannot_run_is_said_and_the_reply_printed(workspace: Path, tmp_path: Path) -> None:
    term = start(workspace, tmp_path, PAGER="/nonexistent/pager -x")
    try:
        term.send("/open big.txt" + ENTER)
        screen = term.wait_for(lambda s: "line 200" in s and at_prompt(s))
        lines = screen.splitlines()
        assert lines[lines.index("line 200") + 1:][:3] == [
            "", "stringsh: cannot run the pager /nonexistent/pager: No such file or directory", "›"]
    finally:
        term.close()


@pytest.mark.parametrize("args", [[], ["-c", "/open big.txt"], ["run", "-"]])
def test_pipes_are_never_paged(workspace: Path, args: list[str]) -> None:
    stdin = "/open big.txt\n" if args != ["-c", "/open big.txt"] else ""
    result = run_stringsh(args, cwd=workspace, stdin=stdin, env={"PAGER": MARKING_PAGER, "STRINGSH_PAGER": "less"})
    assert result.returncode == 0 and b"PAGED" not in result.stdout
    assert "".join(f"{line}\n" for line in BIG.splitlines()) in result.stdout.decode()


@pytest.mark.parametrize(("environ", "expected"), [
    ({}, None),  # filled in below: less when installed
    ({"PAGER": "more -s"}, ["more", "-s"]),
    ({"PAGER": "most", "STRINGSH_PAGER": "less -R"}, ["less", "-R"]),
    ({"PAGER": "more", "STRINGSH_PAGER": ""}, None),
    ({"PAGER": ""}, None),
    ({"PAGER": "cat"}, None),
    ({"PAGER": "  "}, None),
    ({"PAGER": "my pager 'with space"}, ["my pager 'with space"]),
])
def test_which_pager(monkeypatch: pytest.MonkeyPatch, environ: dict[str, str], expected: list[str] | None) -> None:
    monkeypatch.delenv("PAGER", raising=False)
    monkeypatch.delenv("STRINGSH_PAGER", raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    if not environ:
        import shutil

        less = shutil.which("less")
        expected = [less, *LESS_FLAGS] if less else None
    assert pager_command() == expected
