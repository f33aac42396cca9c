"""Agents drive `--plain` over a real pty: no line length limit and an agent mode that cannot
deadlock on a large body (item 2). The bodies are 1 MB, well past the pty's 4095-character canonical line limit
and its few-KB echo buffer."""

from __future__ import annotations

import os
import select
import sys
from pathlib import Path

import pexpect
import pytest

PROMPT = "› "
BANNER = "stringsh — /help lists commands, !cmd runs a shell command, Ctrl-D leaves"
CHUNK = 4096


def spawn(ws: Path, *args: str, env: dict[str, str] | None = None) -> pexpect.spawn:
    child = pexpect.spawn(
        sys.executable,
        ["-m", "stringsh", *args],
        cwd=str(ws),
        env={**os.environ, "TERM": "dumb", **(env or {})},
        encoding="utf-8",
        timeout=60,
        dimensions=(40, 200),
    )
    child.delaybeforesend = None
    return child


def send_all(child: pexpect.spawn, data: str, timeout: float = 60) -> None:
    """Write every byte without reading; fail (rather than hang) when the pty stops taking input: a deadlock."""
    raw = data.encode("utf-8")
    fd = child.child_fd
    os.set_blocking(fd, False)
    try:
        while raw:
            if not select.select([], [fd], [], timeout)[1]:
                pytest.fail(f"deadlock: the pty took no input for {timeout} s with {len(raw)} bytes left to write")
            try:
                raw = raw[os.write(fd, raw[: 64 * 1024]) :]
            except BlockingIOError:
                continue
    finally:
        os.set_blocking(fd, True)


def test_a_1mb_single_line_body_is_written_whole_over_plain_on_a_pty(ws: Path) -> None:
    line = "0123456789abcdef" * 62_500  # 1,000,000 characters, no newline inside
    child = spawn(ws, "--plain")
    child.expect_exact(PROMPT)
    child.sendline("/write longline.txt <<EOF")
    child.expect_exact("… ")
    for start in range(0, len(line), CHUNK):
        chunk = line[start : start + CHUNK]
        child.send(chunk)
        echoed = 0  # read the echo back as it comes, as a person's terminal does, so neither side blocks
        while echoed < len(chunk):
            echoed += len(child.read_nonblocking(CHUNK, timeout=30))
    child.send("\n")
    child.expect_exact("… ")
    child.sendline("EOF")
    child.expect_exact("Created: longline.txt (1000001 bytes, 1 line)")
    child.expect_exact(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert (ws / "longline.txt").read_bytes() == line.encode() + b"\n"



def test_a_body_line_over_1_mib_arrives_whole_on_a_pty(ws: Path, tmp_path: Path) -> None:
    """No line limit in a heredoc body: a 3 MiB line, sent before any reply is read, is written whole (under a
    policy whose write limit allows it; the default allows 1 MiB)."""
    policy = tmp_path / "big.toml"  # outside the workspace
    policy.write_text("[permissions]\nwrite = true\n[limits]\nmax_write_bytes = 4194304\n")
    line = "0123456789abcdef" * (3 * 65_536) + "!"  # 3 MiB and one byte, no newline inside
    child = spawn(ws, "--no-echo", "--policy", str(policy))
    child.expect_exact(BANNER)
    send_all(child, f"/write long.txt <<EOF\n{line}\nEOF\n")
    child.expect_exact("Created: long.txt (3145730 bytes, 1 line)")
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert (ws / "long.txt").read_bytes() == line.encode() + b"\n"

def test_plain_on_a_pty_still_echoes_and_handles_erase(ws: Path) -> None:
    """Line assembly is ours now: the erase character removes what was typed, and Ctrl-D ends the session."""
    child = spawn(ws, "--plain")
    child.expect_exact(PROMPT)
    child.sendline("/write e.txt <<EOF")
    child.expect_exact("… ")
    child.send("abX\x7fc\n")
    child.expect_exact("abX\b \bc")
    child.expect_exact("… ")
    child.sendline("EOF")
    child.expect_exact("Created: e.txt (4 bytes, 1 line)")
    child.expect_exact(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert (ws / "e.txt").read_bytes() == b"abc\n"


@pytest.mark.parametrize(("args", "env"), [(["--no-echo"], {}), (["--plain"], {"STRINGSH_NO_ECHO": "1"})])
def test_agent_mode_takes_a_1mb_body_written_before_any_reply_is_read(
    ws: Path, args: list[str], env: dict[str, str]
) -> None:
    body = "".join(f"{n:07d} {'x' * 55}\n" for n in range(16_384))  # 16,384 lines of 64 bytes: 1 MiB
    child = spawn(ws, *args, env=env)
    child.expect_exact(BANNER)  # written once the pty is switched: from here on no echo and no line limit
    send_all(child, "/write body.txt <<EOF\n" + body + "EOF\n/ls\n")  # nothing is read until it is all sent
    child.expect_exact("Created: body.txt (1048576 bytes, 16384 lines)")
    before = child.before
    child.sendeof()
    child.expect(pexpect.EOF)
    after = child.before
    child.close()
    assert child.exitstatus == 0
    assert (ws / "body.txt").read_bytes() == body.encode()
    transcript = before + after
    assert PROMPT not in transcript and "… " not in transcript  # no prompts
    assert "0000001 xxx" not in transcript and "<<EOF" not in transcript  # no echo of what was sent
    assert "body.txt" in after  # the /ls reply after it
