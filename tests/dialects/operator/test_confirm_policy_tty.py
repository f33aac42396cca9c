"""The `/dev/tty` asker on a real pty (pexpect): the person sees the summary and the diff (control characters
made visible, so an agent's text cannot redraw the prompt) and answers y/N; with no controlling terminal there
is no asker, so the policy's "prompt" refuses."""

from __future__ import annotations

import os
import subprocess
import sys

import pexpect
import pytest

CHILD = """
from stringsh.dialects.operator.confirm import tty_asker
from stringsh.protocol.operator_model import ConfirmRequest
ask = tty_asker()
if ask is None:
    print("NO ASKER")
else:
    diff = "--- /dev/null\\n+++ b/n.txt\\n@@ -0,0 +1 @@\\n+hi\\x1b[2J"
    print("ANSWER", ask(ConfirmRequest("fs.write", "n.txt", "create n.txt (1 lines)", diff)))
"""


def spawn() -> pexpect.spawn:
    return pexpect.spawn(sys.executable, ["-c", CHILD], env={**os.environ, "TERM": "dumb"}, encoding="utf-8",
                         timeout=30)


@pytest.mark.parametrize(("answer", "result"), [("y", "True"), ("yes", "True"), ("", "False"), ("n", "False"),
                                                ("whatever", "False")])
def test_tty_asker_shows_the_diff_and_reads_the_answer(answer: str, result: str) -> None:
    child = spawn()
    child.expect_exact("Apply this change? [y/N] ")
    shown = child.before.replace("\r\n", "\n")
    assert shown == ("operator: fs.write n.txt: create n.txt (1 lines)\n--- /dev/null\n+++ b/n.txt\n"
                     "@@ -0,0 +1 @@\n+hi\\x1b[2J\n")
    child.sendline(answer)
    child.expect_exact(f"ANSWER {result}")
    child.expect(pexpect.EOF)


def test_eof_on_the_terminal_is_a_no() -> None:
    child = spawn()
    child.expect_exact("Apply this change? [y/N] ")
    child.sendeof()
    child.expect_exact("ANSWER False")
    child.expect(pexpect.EOF)


def test_no_controlling_terminal_means_no_asker() -> None:
    proc = subprocess.run([sys.executable, "-c", CHILD], stdin=subprocess.DEVNULL, capture_output=True,
                          start_new_session=True, timeout=30, env={**os.environ})
    assert proc.stdout == b"NO ASKER\n" and proc.returncode == 0
