"""What a supervisor's page reads of other processes (workspace/healthstate.py): the degraded-mode note, read as
untrusted input (only a well-formed note from a regular file is believed), and the workspace lock's holder from
the kernel's lock table."""

from __future__ import annotations

import fcntl
import json
import os
import time
from pathlib import Path

import pytest

from stringsh.workspace.healthstate import (
    CODES,
    DEGRADED_FILE,
    MAX_NOTE,
    TEXT_MAX,
    Degraded,
    LockHolder,
    lock_holder,
    note_degraded,
    parse_note,
    read_degraded,
)
from stringsh.workspace.statelock import DEGRADED


def note(**fields: object) -> bytes:
    return json.dumps({"code": "BUSY", "why": "locked", "pid": 42, "time": 1.5e9, **fields}).encode()


def test_the_codes_a_note_may_hold_are_the_degraded_ones() -> None:
    assert frozenset(DEGRADED) == CODES


NOT_NOTES = [
    b"", b"not json", b"[]", b'"BUSY"', note(code="SHUTDOWN"), note(code=["BUSY"]), note(why=None), note(why=7),
    note(pid=True), note(pid=0), note(pid=-3), note(pid=1 << 30), note(pid="42"), note(time="now"), note(time=None),
    note(time=-1), note(time=time.time() + 3600), note(why="x" * MAX_NOTE), b"[" * 100_000,
    json.dumps({"code": "BUSY"}).encode(), note()[:-1],
]


@pytest.mark.parametrize("data", NOT_NOTES, ids=[f"case-{n}" for n in range(len(NOT_NOTES))])  # ids stable across runs
def test_a_note_that_is_not_one_is_no_note(data: bytes) -> None:
    assert parse_note(data) is None


def test_a_note_is_believed_with_its_text_cut_and_made_printable() -> None:
    assert parse_note(note()) == Degraded("BUSY", "locked", 42, 1.5e9)
    shown = parse_note(note(why="full\n\x1b[31m\u202edisk" + "y" * 400, time=1_500_000_000))
    assert shown is not None and shown.why == "full??[31m?disk" + "y" * (TEXT_MAX - 15)


def test_a_note_is_written_and_read_only_from_a_regular_file(tmp_path: Path) -> None:
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        note_degraded(fd, "NO_SPACE", "no space left for the journal on /")
    finally:
        os.close(fd)
    found = read_degraded(tmp_path)
    assert found is not None and (found.code, found.why, found.pid) == (
        "NO_SPACE", "no space left for the journal on /", os.getpid())
    assert [path.name for path in tmp_path.iterdir()] == [DEGRADED_FILE]  # its temporary file renamed over
    (tmp_path / DEGRADED_FILE).rename(tmp_path / "elsewhere")
    (tmp_path / DEGRADED_FILE).symlink_to(tmp_path / "elsewhere")
    assert read_degraded(tmp_path) is None  # a link is never followed
    (tmp_path / DEGRADED_FILE).unlink()
    os.mkfifo(tmp_path / DEGRADED_FILE)
    assert read_degraded(tmp_path) is None  # a FIFO is refused at once, never waited on
    assert read_degraded(tmp_path / "none") is None


def test_the_lock_holder_is_read_from_the_kernel_without_taking_the_lock(tmp_path: Path) -> None:
    lock = tmp_path / "lock"
    assert lock_holder(lock) == LockHolder(False)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        assert lock_holder(lock) == LockHolder(False)
        fcntl.flock(fd, fcntl.LOCK_EX)
        held = lock_holder(lock)
        assert (held.held, held.pid) == (True, os.getpid())
        assert held.program == Path("/proc/self/cmdline").read_bytes().rstrip(b"\0").replace(
            b"\0", b" ").decode()[:TEXT_MAX]
        fcntl.flock(fd, fcntl.LOCK_UN)
        assert lock_holder(lock) == LockHolder(False)
    finally:
        os.close(fd)
