"""Confirmation of OPERATOR_CMD changes through the real `stringsh operator`: allowed (the user's own policy),
declined and accepted on the controlling terminal (/dev/tty of a pty, while the blocks come on pipes), and
unavailable (no controlling terminal: a new session on pipes); a workspace's stringsh.toml cannot widen it."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import pexpect

from tests.dialects.operator.operator_support import allow_changes, b64, block, files, operator, result

NO_TERMINAL = ('not confirmed: no terminal to ask on; set [operator] confirm = "allow" in your own policy '
               "(<config>/policy.toml or --policy FILE) to let changes run unattended")
DECLINED = "not confirmed: declined by the user; nothing was written"
DENIED = 'not confirmed: the policy denies changes ([operator] confirm = "deny")'
WRITE = block("version: 1", "id: w", "action: fs.write", "path: notes/new.md",
              "content_b64: " + b64("line one\nline two\n"))


def test_unavailable_without_a_terminal_writes_nothing(ws: Path) -> None:
    out, status = operator(ws, WRITE)
    assert out == result("w", False, NO_TERMINAL)
    assert status == 1
    assert files(ws) == {}


def test_allowed_by_the_users_policy(ws: Path) -> None:
    allow_changes()
    out, status = operator(ws, WRITE)
    assert out == result("w", True, "Wrote file", change=1)
    assert status == 0
    assert files(ws) == {"notes/new.md": b"line one\nline two\n"}


def test_a_workspace_policy_cannot_widen_to_allow(ws: Path) -> None:
    (ws / "stringsh.toml").write_text('[operator]\nconfirm = "allow"\n')
    out, _ = operator(ws, WRITE)
    assert out == result("w", False, NO_TERMINAL)
    assert not (ws / "notes").exists()


def test_denied_by_the_users_policy(ws: Path) -> None:
    config = Path(os.environ["STRINGSH_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "policy.toml").write_text('[operator]\nconfirm = "deny"\n')
    out, _ = operator(ws, WRITE)
    assert out == result("w", False, DENIED)
    assert not (ws / "notes").exists()


def _on_a_terminal(ws: Path, answer: str) -> tuple[str, str]:
    """`stringsh operator` with blocks on a pipe (a file) and its controlling terminal a pty a person answers."""
    (ws.parent / "in.txt").write_text(WRITE)
    command = (f"{shlex.quote(sys.executable)} -m stringsh operator < {shlex.quote(str(ws.parent / 'in.txt'))} "
               f"> {shlex.quote(str(ws.parent / 'out.txt'))}")
    child = pexpect.spawn("/bin/sh", ["-c", command], cwd=str(ws), env={**os.environ, "TERM": "dumb"},
                          encoding="utf-8", timeout=60)
    try:
        child.expect_exact("Apply this change? [y/N] ")
        shown = child.before
        child.sendline(answer)
        child.expect(pexpect.EOF)
    finally:
        child.close()
    return shown, (ws.parent / "out.txt").read_text()


def test_declined_on_the_terminal(ws: Path) -> None:
    shown, out = _on_a_terminal(ws, "n")
    assert "+line one" in shown and "+line two" in shown  # the person saw what would change
    assert out == result("w", False, DECLINED)
    assert not (ws / "notes").exists()


def test_accepted_on_the_terminal(ws: Path) -> None:
    _, out = _on_a_terminal(ws, "y")
    assert out == result("w", True, "Wrote file", change=1)
    assert (ws / "notes" / "new.md").read_bytes() == b"line one\nline two\n"


def test_a_100_mb_payload_is_refused_without_decoding_and_the_loop_goes_on(ws: Path) -> None:
    allow_changes()
    huge = ("OPERATOR_CMD\nversion: 1\nid: huge\naction: fs.write\npath: big.txt\ncontent_b64: "
            + "QUFB" * (25 * 1024 * 1024) + "\nEND_OPERATOR_CMD\n")
    after = block("version: 1", "id: after", "action: fs.write", "path: after.txt", "content: still here")
    out, status = operator(ws, huge + after)
    assert out == (result("huge", False, "Invalid OPERATOR_CMD (ERR_PAYLOAD_TOO_LARGE): field=content_b64 is longer "
                                         "than 11184812 characters, the base64 of 8388608 bytes "
                                         "(limits.max_write_bytes).")
                   + result("after", True, "Wrote file", change=1))
    assert status == 1
    assert files(ws) == {"after.txt": b"still here"}


def test_a_payload_over_a_narrowed_cap_is_refused_from_its_length(ws: Path) -> None:
    allow_changes()
    (ws / "stringsh.toml").write_text("[limits]\nmax_write_bytes = 10\n")
    out, _ = operator(ws, block("version: 1", "id: n", "action: fs.write", "path: x.txt",
                                "content_b64: " + b64("0123456789ABCDEFGHIJ")))
    assert out == result("n", False, "Invalid OPERATOR_CMD (ERR_PAYLOAD_TOO_LARGE): field=content_b64 decodes to "
                                     "more than 10 bytes (limits.max_write_bytes).")
    assert not (ws / "x.txt").exists()
