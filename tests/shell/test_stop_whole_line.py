"""A timeout or Ctrl-C ends the whole command line the agent sent, not one program of it.

Driven through the real program (`stringsh --plain` over pipes and on a pty), locally and under bubblewrap. Each
test waits, while stringsh (and so the topic's shell) still runs, until no program of the stopped line is left
below stringsh and the shell has answered a later request, then checks that nothing was written and that the shell
kept its cwd and exports.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pexpect
import pytest

from tests.conftest import descendants, process_name, wait_for_program, wait_until
from tests.shell.piped import PipedPlain, policy_args

#: A program that ends quietly with status 0 on SIGINT or SIGTERM, as pytest does on Ctrl-C: bash goes on
#: with the rest of the line unless it is told to stop too.
POLITE = "sh -c 'trap \"exit 0\" INT TERM; sleep 30 & wait'"
#: What runs the rest of a line below: the programs it names, and a subshell (bash below bash) holding it.
LINE_PROGRAMS = frozenset({"sleep", "date", "sh"})


def _process(pid: int) -> tuple[str, int, str]:
    """(name, parent, command line) of a live process, or ("", 0, "") once it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
    except OSError:
        return "", 0, ""
    return process_name(pid), int(stat.rsplit(")", 1)[1].split()[1]), cmdline


def line_left(pid: int) -> list[str]:
    """The processes below stringsh (`pid`) that could still run the rest of a stopped line: its programs, or a
    bash whose parent is a bash. POLITE's `sleep 30`, started in the background (so SIGINT never reaches it),
    writes nothing and is not counted."""
    left = []
    for child in descendants(pid):
        name, parent, cmdline = _process(child)
        if (name in LINE_PROGRAMS and cmdline != "sleep 30") or (name == "bash" and _process(parent)[0] == "bash"):
            left.append(f"{child} {cmdline}")
    return left


def wait_line_ended(pid: int) -> None:
    """Wait for the positive signal that the stopped line is over: nothing below stringsh could still run it."""
    wait_until(lambda: not line_left(pid), 0.05)


def test_timeout_ends_the_whole_line_and_the_shell_keeps_cwd_and_exports(
    ws: Path, tmp_path: Path, sandbox: str
) -> None:
    sub = ws / "sub"
    plain = PipedPlain(ws, policy_args(tmp_path, sandbox))
    try:
        plain.send(
            "!mkdir sub && cd sub && export KEEP=kept",
            "/set {_timeout} = 1",
            "!sleep 2; date > step2.txt; sleep 2; date > step3.txt",
            f"!{POLITE}; date > committed.txt",
            "!pwd; echo $KEEP",
        )
        transcript = plain.read_until("\nkept\n</𝒞>\n")
        wait_line_ended(plain.proc.pid)
        assert sorted(p.name for p in sub.iterdir()) == []
    finally:
        status = plain.close()
    assert status == 1  # the timed-out requests failed
    cwd = f"cwd: {sub.resolve()}"
    assert transcript.split("</𝒞>\n") == [
        f"re: !mkdir sub && cd sub && export KEEP=kept\nexit: 0 | {cwd}\n---\n(no output)\n",
        're: /set {_timeout} = 1\n{_timeout} = "1"\n',
        "re: !sleep 2; date > step2.txt; sleep 2; date > step3.txt\n"
        f"exit: 124 | {cwd}\n---\nTerminated\n[timed out after 1 s; the command was stopped]\n",
        f"re: !{POLITE}; date > committed.txt\n"
        f"exit: 124 | {cwd}\n---\n(no output)\n[timed out after 1 s; the command was stopped]\n",
        f"re: !pwd; echo $KEEP\nexit: 0 | {cwd}\n---\n{sub.resolve()}\nkept\n",
        "",
    ]


def test_exec_timeout_ends_the_whole_line(ws: Path, tmp_path: Path, sandbox: str) -> None:
    plain = PipedPlain(ws, policy_args(tmp_path, sandbox))
    try:
        plain.send(
            "/set {_timeout} = 1",
            "/exec sleep 2; date > step2.txt; sleep 2; date > step3.txt",
            f"/exec {POLITE}; date > committed.txt",
            "!echo next",
        )
        transcript = plain.read_until("\nnext\n</𝒞>\n")
        wait_line_ended(plain.proc.pid)
        assert sorted(p.name for p in ws.iterdir()) == [".stringsh"]
    finally:
        plain.close()
    cwd = f"cwd: {ws.resolve()}"
    assert transcript.split("</𝒞>\n")[1:3] == [
        "re: /exec sleep 2; date > step2.txt; sleep 2; date > step3.txt\n"
        f"exit: 124 | {cwd}\n---\n(no output)\n[timed out after 1 s; the command was stopped]\n",
        f"re: /exec {POLITE}; date > committed.txt\n"
        f"exit: 124 | {cwd}\n---\n(no output)\n[timed out after 1 s; the command was stopped]\n",
    ]


def spawn_plain(ws: Path, args: list[str]) -> pexpect.spawn:
    child = pexpect.spawn(
        sys.executable, ["-m", "stringsh", "--plain", *args], cwd=str(ws),
        env={**os.environ, "TERM": "dumb"}, encoding="utf-8", timeout=30, dimensions=(40, 200),
    )
    child.delaybeforesend = None
    child.expect_exact("› ")
    return child


def interrupt(child: pexpect.spawn, line: str) -> str:
    """Send `line`, Ctrl-C once its program runs, and return the reply."""
    child.sendline(line)
    child.expect_exact(line)
    wait_for_program(child.pid, "sleep")  # the line's program runs: an early ^C proves less
    child.sendintr()
    child.expect_exact("› ", timeout=20)
    return child.before.replace("\r\n", "\n")


@pytest.mark.parametrize(
    "line",
    [f"!{POLITE}; date > step2.txt", "!sleep 3; date > step2.txt", f"/exec {POLITE}; date > step2.txt"],
    ids=["program-ends-quietly", "program-dies", "exec"],
)
def test_ctrl_c_ends_the_whole_line_and_the_shell_keeps_cwd_and_exports(
    ws: Path, tmp_path: Path, sandbox: str, line: str
) -> None:
    sub = ws / "sub"
    child = spawn_plain(ws, policy_args(tmp_path, sandbox))
    child.sendline("!mkdir sub && cd sub && export KEEP=kept")
    child.expect_exact("› ")
    if line.startswith("/exec"):
        line = line.replace("step2.txt", "sub/step2.txt")
    reply = interrupt(child, line)
    if line.startswith("!"):
        assert f"exit: 130 | cwd: {sub.resolve()}\n" in reply
    child.sendline("!pwd; echo $KEEP")
    child.expect_exact("› ")
    after = child.before.replace("\r\n", "\n")
    wait_line_ended(child.pid)
    assert sorted(p.name for p in sub.iterdir()) == []
    child.sendeof()
    child.expect(pexpect.EOF)
    assert after.endswith(f"exit: 0 | cwd: {sub.resolve()}\n---\n{sub.resolve()}\nkept\n")


def test_a_shell_that_ignores_sigint_is_ended_so_the_line_stops(ws: Path, tmp_path: Path, sandbox: str) -> None:
    """`trap '' INT` in the shell itself: bash cannot be told to drop the line, so the shell is ended (the reply
    and the next one say so, as for any shell killed at a timeout)."""
    plain = PipedPlain(ws, policy_args(tmp_path, sandbox))
    try:
        assert plain.ask("/set {_timeout} = 1") == 're: /set {_timeout} = 1\n{_timeout} = "1"\n'
        header = "!trap '' INT; sleep 2; date > step2.txt"
        assert plain.ask(header) == (
            f"re: {header}\nexit: 124 | cwd: {ws.resolve()}\n---\n[shell killed: the command did not stop]\n"
            "[timed out after 1 s; the command was stopped]\n"
        )
        assert plain.ask("!echo back") == (
            f"re: !echo back\nexit: 0 | cwd: {ws.resolve()}\n---\n"
            "[shell restarted: previous session ended (exit 137); cwd and exports reset]\nback\n"
        )
        wait_line_ended(plain.proc.pid)
        assert not (ws / "step2.txt").exists()
    finally:
        plain.close()


def test_ctrl_c_ends_a_shell_that_ignores_sigint(ws: Path, tmp_path: Path, sandbox: str) -> None:
    child = spawn_plain(ws, policy_args(tmp_path, sandbox))
    reply = interrupt(child, "!trap '' INT; sleep 3; date > step2.txt")
    ended = "[shell ended (exit 137); the next command starts a new one]"
    assert reply.endswith(f"exit: 137 | cwd: {ws.resolve()}\n---\n{ended}\n")
    child.sendline("!echo back")  # a shell answering a later request has moved on from the line
    child.expect_exact("back")
    child.expect_exact("› ")
    wait_line_ended(child.pid)
    assert not (ws / "step2.txt").exists()
    child.sendeof()
    child.expect(pexpect.EOF)
