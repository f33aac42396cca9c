"""Reading a descriptor ourselves (protocol/fdinput.py): lines as a binary file's readline gives them, and the daemon
on an input it cannot watch (a regular file) reads it as before."""

from __future__ import annotations

import io
import os
import subprocess
import threading
from pathlib import Path

from stringsh.protocol.fdinput import CHUNK, FdLines, InputTurns
from tests.conftest import STRINGSH


def piped(data: bytes) -> int:
    """A pipe's read end that yields `data`, then the end of input (written by a thread: more than a pipe holds)."""
    read_end, write_end = os.pipe()

    def feed() -> None:
        with os.fdopen(write_end, "wb") as sink:
            sink.write(data)

    threading.Thread(target=feed, daemon=True).start()
    return read_end


def test_lines_and_limits_come_out_as_a_binary_files_readline_gives_them() -> None:
    long_line = b"x" * (CHUNK * 3 + 17) + b"\n"
    data = b"one\n\ntwo\r\n" + long_line + b"tail without newline"
    limits = [-1, -1, 3, -1, 100, CHUNK, -1, 5, -1, -1, -1]
    fd = piped(data)
    try:
        lines = FdLines(fd)
        ours = [lines.readline(limit) for limit in limits]
    finally:
        os.close(fd)
    reference = io.BytesIO(data)
    assert ours == [reference.readline(limit) for limit in limits]
    assert ours[-4:] == [b"tail ", b"without newline", b"", b""]


def test_a_request_already_read_is_pending_and_a_regular_file_is_not_watched(tmp_path: Path) -> None:
    fd = piped(b"/set a = 1\n/set b = 2\n")
    try:
        lines = FdLines(fd)
        turns = InputTurns.watch(lines)
        assert turns is not None
        turns.wait()  # the bytes arrived: this thread's turn
        turns.taken()
        assert lines.readline() == b"/set a = 1\n"
        assert lines.pending()  # the second line came in the same read
        turns.hand_on()
        turns.wait()  # woken for the line already read, which the descriptor would not announce again
        assert lines.readline() == b"/set b = 2\n"
        assert not lines.pending()
    finally:
        os.close(fd)
    (tmp_path / "requests").write_bytes(b"/set a = 1\n")
    with open(tmp_path / "requests", "rb") as file:
        assert InputTurns.watch(FdLines(file.fileno())) is None


def test_the_daemon_reads_requests_from_a_regular_file(ws: Path, tmp_path: Path) -> None:
    (tmp_path / "requests").write_text("[a] /set a = 1\n[b] /set\n")
    with open(tmp_path / "requests", "rb") as requests:
        proc = subprocess.run([*STRINGSH, "daemon"], cwd=ws, stdin=requests, capture_output=True, timeout=60)
    assert proc.returncode == 0
    assert proc.stdout.decode() == (
        '<𝒞=string:main>\nre: [a] /set a = 1\n{a} = "1"\n</𝒞>\n'
        '<𝒞=string:main>\nre: [b] /set\nVariables\n---\n{a} = "1"\n</𝒞>\n'
    )
