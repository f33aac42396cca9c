"""The plain loop, driven as agents drive it: through a real pty and over pipes."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pexpect

from tests.conftest import default_start, run_stringsh, wait_for_program
from tests.frontends.scripts import SCRIPT, check, make_workspace, split_replies

PROMPT = "› "


def spawn(ws: Path, *args: str, term: str = "dumb") -> pexpect.spawn:
    env = {**os.environ, "TERM": term}
    child = pexpect.spawn(
        sys.executable,
        ["-m", "stringsh", *args],
        cwd=str(ws),
        env=env,
        encoding="utf-8",
        timeout=30,
        dimensions=(40, 200),
    )
    child.delaybeforesend = None
    return child


def requests_of(script: str) -> list[str]:
    """The script's requests as a person types them (comments dropped, heredocs kept whole)."""
    return [line for line in script.splitlines() if line and not line.startswith("#")]


def drive(child: pexpect.spawn, lines: list[str]) -> str:
    transcript = []
    child.expect_exact(PROMPT)
    transcript.append(child.before + child.after)
    for line in lines:
        child.sendline(line)
        child.expect_exact([PROMPT, "… "])
        transcript.append(child.before + child.after)
    child.sendeof()
    child.expect(pexpect.EOF)
    transcript.append(child.before)
    return "".join(transcript)


def test_plain_loop_in_a_pty_gives_the_same_replies_as_run_and_no_escapes(ws: Path) -> None:
    make_workspace(ws)
    child = spawn(ws, "--plain", term="xterm-256color")
    transcript = drive(child, requests_of(SCRIPT))
    child.close()
    assert child.exitstatus == 0
    assert "\x1b" not in transcript
    assert transcript.startswith(  # the start-up line (stderr, cli.announce_policy) if any, then the banner
        default_start().replace("\n", "\r\n")
        + "stringsh — /help lists commands, !cmd runs a shell command, Ctrl-D leaves"
    )
    # The pty echoes what was typed; the replies are what follows each echoed request line.
    replies = []
    for chunk in transcript.replace("\r\n", "\n").split(PROMPT)[1:]:
        lines = chunk.split("\n")
        reply = [line for line in lines if not line.startswith("… ")]
        text = "\n".join(reply[1:]).strip("\n")
        if text:
            replies.append(text)
    check(replies)
    script = ws.parent / "s.str"
    script.write_text(SCRIPT)
    run_out = run_stringsh(["run", "--keep-going", str(script)], ws).stdout.decode()
    assert replies == split_replies(run_out)


def test_term_dumb_selects_the_plain_loop(ws: Path) -> None:
    child = spawn(ws)
    child.expect_exact(PROMPT)
    child.sendline("/ls")
    child.expect_exact(PROMPT)
    assert child.before.replace("\r\n", "\n") == "/ls\nre: /ls\nListing ./\n---\n(empty)\n"
    child.sendeof()
    child.expect(pexpect.EOF)


def test_heredoc_continuation_prompt_in_a_pty(ws: Path) -> None:
    child = spawn(ws, "--plain")
    child.expect_exact(PROMPT)
    child.sendline("/set <<EOF")
    child.expect_exact("… ")
    child.sendline("a = 1")
    child.expect_exact("… ")
    child.sendline("EOF")
    child.expect_exact(PROMPT)
    assert child.before.replace("\r\n", "\n").endswith('re: /set\n{a} = "1"\n')
    child.sendeof()
    child.expect(pexpect.EOF)


def test_ctrl_c_at_the_prompt_keeps_the_loop(ws: Path) -> None:
    child = spawn(ws, "--plain")
    child.expect_exact(PROMPT)
    child.sendintr()
    child.expect_exact(PROMPT)
    child.sendline("/set")
    child.expect_exact("No variables set.")
    child.sendeof()
    child.expect(pexpect.EOF)


def test_plain_loop_over_pipes_prints_no_prompt(ws: Path) -> None:
    proc = run_stringsh([], ws, stdin="/set a = 1\nnot a command\n/set\n")
    assert proc.returncode == 1  # a request failed: as `stringsh run --keep-going`
    assert proc.stdout.decode() == (  # each reply ends with the line `</𝒞>`
        're: /set a = 1\n{a} = "1"\n</𝒞>\n'
        "re: not a command\nERROR(COMMAND_UNSUPPORTED): Commands must start with /.\nUse /help for details.\n</𝒞>\n"
        're: /set\nVariables\n---\n{a} = "1"\n</𝒞>\n'
    )


def test_blank_and_comment_lines_get_a_fresh_prompt(ws: Path) -> None:
    child = spawn(ws, "--plain")
    child.expect_exact(PROMPT)
    child.sendline("")
    child.expect_exact(PROMPT)
    child.sendline("# just a note")
    child.expect_exact(PROMPT)
    assert "re:" not in child.before
    child.sendline("/set")
    child.expect_exact("No variables set.")
    child.sendeof()
    child.expect(pexpect.EOF)


def test_ctrl_c_interrupts_a_running_shell_command_and_the_session_goes_on(ws: Path) -> None:
    child = spawn(ws, "--plain")
    child.expect_exact(PROMPT)
    child.sendline("!export KEEP=1; sleep 30")
    child.expect_exact("!export KEEP=1; sleep 30")
    wait_for_program(child.pid, "sleep")  # an early ^C is also fine but proves less
    child.sendintr()
    child.expect_exact(PROMPT, timeout=20)
    assert f"exit: 130 | cwd: {ws.resolve()}" in child.before
    child.sendline("!echo still $KEEP")
    child.expect_exact(PROMPT)
    assert child.before.replace("\r\n", "\n").endswith(f"exit: 0 | cwd: {ws.resolve()}\n---\nstill 1\n")
    child.sendeof()
    child.expect(pexpect.EOF)
