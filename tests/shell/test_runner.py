"""The one `bash -c` runner every stateless caller shares: sinks, stdin, working folder, deadline, leftovers."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from stringsh.errors import StringError
from stringsh.workspace.shell.runner import BashCall, Stream, execute

ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}


def call(command: str, cwd: Path, *, timeout: float = 20.0, **options: Any) -> BashCall:
    return BashCall(command, cwd, ENV, timeout, 0.3, **options)


def test_one_sink_merges_both_streams_in_order(tmp_path: Path) -> None:
    got: list[bytes] = []
    ended = execute(call("echo a; echo b >&2; echo c; exit 3", tmp_path), got.append)
    assert (b"".join(got), ended.status, ended.timed_out) == (b"a\nb\nc\n", 3, False)


def test_two_sinks_keep_the_streams_apart_and_capped(tmp_path: Path) -> None:
    out, err = Stream(4), Stream(100)
    ended = execute(call("printf 'abcdefgh'; printf 'oops' >&2", tmp_path), out.add, err.add)
    assert (bytes(out.data), out.total, out.truncated) == (b"abcd", 8, True)
    assert (bytes(err.data), err.truncated, ended.status) == (b"oops", False, 0)


def test_stdin_is_empty_unless_given(tmp_path: Path) -> None:
    got: list[bytes] = []
    execute(call("read x; echo \"$? [$x]\"", tmp_path), got.append)
    execute(call("read x; echo \"$? [$x]\"; cat", tmp_path, stdin=b"first\nrest\n"), got.append)
    assert b"".join(got) == b"1 []\n0 [first]\nrest\n"


def test_workdir_and_wrap(tmp_path: Path) -> None:
    inner = tmp_path / "in side"
    inner.mkdir()
    seen: list[list[str]] = []

    def wrap(argv: list[str]) -> list[str]:
        seen.append(argv)
        return ["/usr/bin/env", "WRAPPED=yes", *argv]

    got: list[bytes] = []
    execute(call("echo $WRAPPED; pwd", tmp_path, wrap=wrap, workdir=inner), got.append)
    assert b"".join(got).decode() == f"yes\n{inner}\n"
    assert seen[0][:3] == ["/usr/bin/env", "-C", str(inner)]


def test_deadline_stops_a_command_that_ignores_sigterm(tmp_path: Path) -> None:
    got: list[bytes] = []
    ended = execute(call("echo part; trap '' TERM; sleep 30", tmp_path, timeout=0.5), got.append)
    assert (b"".join(got), ended.timed_out, ended.status) == (b"part\n", True, 137)


def test_nothing_outlives_the_run(tmp_path: Path) -> None:
    got: list[bytes] = []
    execute(call("sleep 60 >/dev/null 2>&1 & echo $!", tmp_path), got.append)
    pid = int(b"".join(got))
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            state = handle.read().rsplit(b")", 1)[1].split()[0]
    except FileNotFoundError:
        state = b"gone"
    assert state in (b"gone", b"Z", b"X")


def test_a_nul_byte_is_refused_before_bash_starts(tmp_path: Path) -> None:
    with pytest.raises(StringError) as caught:
        execute(call("echo \x00; touch ran", tmp_path), lambda _: None)
    assert caught.value.code == "INVALID_PAYLOAD"
    assert not (tmp_path / "ran").exists()
