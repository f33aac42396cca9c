"""Finding 12: the policy validator refuses nonsense, and a policy file is read like any untrusted file."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from stringsh.errors import StringError
from stringsh.workspace import load_policy
from tests.conftest import run_stringsh

NONSENSE = {
    "root-id-newline": ('[[roots]]\nid = "main\\n"\npath = "."\n', "roots[0].id must match"),
    "limit-zero": ("[limits]\nmax_results = 0\n", "limits.max_results = 0 is out of range"),
    "read-2gib": ("[limits]\nmax_read_bytes = 2147483648\n", "limits.max_read_bytes = 2147483648 is out of range"),
    "walk-files-above-entries": (
        "[limits]\nmax_walk_entries = 10\nmax_walk_files = 20\n",
        "limits.max_walk_files must not be above limits.max_walk_entries",
    ),
    "timeout-zero": ("[shell]\ntimeout = 0.0\n", "shell.timeout = 0.0 is out of range"),
    "budget-zero": ("[changes]\nmax_files = 0\n", "changes.max_files = 0 is out of range"),
    "redact-empty": ('[secrets]\nredact_regexes = [""]\n', "is empty"),
    "redact-dot": ('[secrets]\nredact_regexes = ["."]\n', "matches ordinary text"),
    "redact-dot-star": ('[secrets]\nredact_regexes = [".*"]\n', "matches ordinary text"),
    "redact-optional": ('[secrets]\nredact_regexes = ["x?"]\n', "matches ordinary text"),
    "deny-dotdot": ('[secrets]\ndeny_globs = ["../outside/**"]\n', "has a '..' component"),
    "allow-dotdot": ('[changes]\nallow_globs = ["src/../../x"]\n', "has a '..' component"),
    "glob-nothing": ('[secrets]\ndeny_globs = ["./"]\n', "names no path"),
    "too-many-globs": (
        "[secrets]\ndeny_globs = [" + ", ".join(f'"g{i}"' for i in range(257)) + "]\n",
        "secrets.deny_globs has 257 patterns (at most 256)",
    ),
    "glob-too-long": ('[secrets]\ndeny_globs = ["' + "a" * 1025 + '"]\n', "is too long"),
    "regex-too-long": ('[secrets]\nredact_regexes = ["' + "a" * 1025 + '"]\n', "longer than 1 KiB"),
    "replacement-newline": ('[secrets]\nreplacement = "a\\nb"\n', "secrets.replacement must be one line"),
}


@pytest.mark.parametrize("case", list(NONSENSE))
def test_policy_validator_refuses_nonsense(ws: Path, case: str) -> None:
    text, problem = NONSENSE[case]
    (ws / "stringsh.toml").write_text(text)
    with pytest.raises(StringError) as caught:
        load_policy(ws)
    assert caught.value.code == "INVALID_PAYLOAD" and problem in caught.value.message
    proc = run_stringsh(["-c", "/ls"], ws)
    assert proc.returncode == 2 and proc.stdout == b""
    refused = f"stringsh: ERROR(INVALID_PAYLOAD): Bad policy file {ws / 'stringsh.toml'}: "
    assert proc.stderr.decode().startswith(refused)


def test_sane_values_still_load(ws: Path) -> None:
    given = ws.parent / "mine.toml"  # the user's own (--policy): the cap itself is allowed
    given.write_text(
        '[[roots]]\nid = "main"\npath = "."\n[limits]\nmax_read_bytes = 268435456\nmax_walk_files = 10\n'
        'max_walk_entries = 10\n[secrets]\nredact_regexes = ["tok-[0-9a-f]{8}"]\ndeny_globs = ["**/*.bak"]\n'
    )
    policy = load_policy(ws, given)
    assert policy.limits.max_read_bytes == 256 * 1024 * 1024 and policy.roots[0].id == "main"


def test_a_fifo_given_as_policy_does_not_hang(ws: Path) -> None:
    fifo = ws.parent / "p.toml"
    os.mkfifo(fifo)
    proc = run_stringsh(["--policy", str(fifo), "-c", "/ls"], ws, timeout=20)
    assert proc.returncode == 2
    assert proc.stderr.decode().startswith(f"stringsh: ERROR(INVALID_PAYLOAD): Bad policy file {fifo}: not a regular")
    (ws / "stringsh.toml").unlink(missing_ok=True)
    os.mkfifo(ws / "stringsh.toml")
    writer = threading.Timer(15, lambda: open(ws / "stringsh.toml", "w").close())  # unblocks a hang, if any
    writer.start()
    try:
        proc = run_stringsh(["-c", "/ls"], ws, timeout=20)
    finally:
        writer.cancel()
    assert proc.returncode == 2 and b"not a regular file" in proc.stderr


def test_a_policy_symlink_out_of_the_workspace_is_refused(ws: Path) -> None:
    outside = ws.parent / "evil.toml"
    outside.write_text('[secrets]\ndeny_globs = ["*.bak"]\n')
    (ws / "stringsh.toml").symlink_to(outside)
    proc = run_stringsh(["-c", "/ls"], ws)
    assert proc.returncode == 2 and proc.stdout == b""
    assert proc.stderr.decode() == (
        f"stringsh: ERROR(NOT_PERMITTED): Policy file {ws / 'stringsh.toml'} is a symlink to a file outside the "
        f"workspace: {outside.resolve()}\n"
        "Replace the link with the file itself, or give a policy of your own with --policy FILE.\n"
    )
    (ws / "stringsh.toml").unlink()
    (ws / "conf.toml").write_text('[secrets]\ndeny_globs = ["*.bak"]\n')
    (ws / "stringsh.toml").symlink_to("conf.toml")  # a link that stays inside is fine
    assert load_policy(ws).matcher().denied("a.bak")


def test_an_oversized_policy_is_refused(ws: Path) -> None:
    (ws / "stringsh.toml").write_text("# pad\n" * 200_000)
    with pytest.raises(StringError) as caught:
        load_policy(ws)
    assert caught.value.message.endswith("larger than 1048576 bytes")
