"""stringsh started the unusual ways a script or a shell can start a program: a standard stream closed, its
reader gone before it writes, its current folder removed. Each ends with one line on stderr and a status, never a
traceback, and nothing meant for stderr reaches the replies. Real processes, started through bash where bash is what
sets the situation up."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.conftest import STRINGSH, default_start, run_stringsh

#: Every way in that reads the workspace folder from the current one.
STARTS = [["-c", "/ls"], ["run", "-"], ["daemon"], ["tools"], ["operator"], ["mcp"], ["web"], ["trust", "--status"],
          ["audit", "tail"], ["audit", "verify"], []]


@pytest.mark.parametrize("argv", STARTS, ids=lambda argv: " ".join(argv) or "repl")
def test_a_current_folder_removed_is_named_with_what_to_do(tmp_path: Path, argv: list[str]) -> None:
    # the shell sat in a folder that another program removed, then started stringsh there
    gone = tmp_path / "gone"
    gone.mkdir()
    done = subprocess.run(["bash", "-c", 'cd -- "$1" && rmdir -- "$1" && shift && exec "$@"', "bash", str(gone),
                           *STRINGSH, *argv], input=b"", capture_output=True, timeout=60)
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr.decode() == (
        "stringsh: the current folder no longer exists: cd to a folder, or name one with --root DIR\n")


@pytest.mark.parametrize("argv", [["-c", "/ls"], ["audit", "tail"], ["--version"]], ids=" ".join)
def test_standard_output_closed_is_said_on_stderr(ws: Path, argv: list[str]) -> None:
    done = subprocess.run(["bash", "-c", 'exec "$@" >&-', "bash", *STRINGSH, *argv], cwd=ws, capture_output=True,
                          timeout=60)
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr.decode() == (
        "stringsh: standard output is closed: open it (a file, a pipe, /dev/null) and run again\n")


def gone_reader(ws: Path, argv: list[str], stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    """Run stringsh with its standard output a pipe whose reading end is already closed: its first write fails."""
    proc = subprocess.Popen([*STRINGSH, *argv], cwd=ws, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None
    proc.stdout.close()
    _, err = proc.communicate(stdin, timeout=60)
    return subprocess.CompletedProcess(proc.args, proc.returncode, b"", err)


@pytest.mark.parametrize("argv", [["audit", "tail"], ["audit", "verify"], ["trust", "--status"]], ids=" ".join)
def test_a_reader_gone_ends_a_listing_quietly_as_sigpipe_would(ws: Path, argv: list[str]) -> None:
    assert run_stringsh(["-c", "/ls"], cwd=ws).returncode == 0  # an audit record to list
    done = gone_reader(ws, argv)
    assert (done.returncode, done.stderr) == (128 + 13, b"")


@pytest.mark.parametrize(("argv", "stdin"), [(["-c", "/write new.txt\nhello\n"], b""),
                                             (["run", "-"], b"/write new.txt <<EOF\nhello\nEOF\n")], ids=["-c", "run"])
def test_a_reader_gone_does_not_undo_or_fail_the_request(ws: Path, argv: list[str], stdin: bytes) -> None:
    # the request ran and its change is real: the status is the request's, as if its reply had been read
    done = gone_reader(ws, argv, stdin)
    said = b"" if argv[0] == "-c" else default_start().encode()  # -c says whether the shell is sandboxed for `!` only
    assert (done.returncode, done.stderr) == (0, said)
    assert (ws / "new.txt").read_text() == "hello\n"



#: Every way in that reads requests from standard input.
READERS = [["run", "-"], ["daemon"], ["daemon", "--json"], ["tools"], ["operator"], ["mcp"], []]


@pytest.mark.parametrize("argv", READERS, ids=lambda argv: " ".join(argv) or "plain")
def test_standard_input_closed_is_no_input(ws: Path, argv: list[str]) -> None:
    done = subprocess.run(["bash", "-c", 'exec "$@" <&-', "bash", *STRINGSH, *argv], cwd=ws, capture_output=True,
                          timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", default_start().encode())


@pytest.mark.parametrize(("argv", "stdin", "first"), [
    (["-c", "/ls"], b"", b"re: /ls\n"),
    (["daemon"], b"/ls\n", "<\U0001d49e=string:main>\n".encode()),
    (["mcp"], b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}\n', b'{"jsonrpc":"2.0","id":1,"result":{}}\n'),
], ids=["-c", "daemon", "mcp"])
def test_standard_error_closed_keeps_the_start_up_line_out_of_the_replies(ws: Path, argv: list[str], stdin: bytes,
                                                                          first: bytes) -> None:
    # an untrusted workspace policy: the start-up line on stderr says it narrows the policy
    (ws / "stringsh.toml").write_text("[shell]\ntimeout = 5.0\n")
    assert b"narrows the policy" in run_stringsh(["-c", "/ls"], cwd=ws).stderr
    done = subprocess.run(["bash", "-c", 'exec "$@" 2>&-', "bash", *STRINGSH, *argv], cwd=ws, input=stdin,
                          capture_output=True, timeout=60)
    assert done.returncode == 0
    assert done.stdout.startswith(first), done.stdout


@pytest.mark.parametrize("argv", READERS, ids=lambda argv: " ".join(argv) or "plain")
def test_a_read_error_on_standard_input_ends_it_with_one_line(ws: Path, argv: list[str]) -> None:
    # EBADF here (standard input open for writing only): EIO from a pty whose other side went away, or ECONNRESET
    # from a socket, end the input the same way
    wrong_way = os.open(ws.parent / "written.txt", os.O_WRONLY | os.O_CREAT)
    try:
        done = subprocess.run([*STRINGSH, *argv], cwd=ws, stdin=wrong_way, capture_output=True, timeout=60)
    finally:
        os.close(wrong_way)
    assert (done.returncode, done.stdout) == (1, b"")
    assert done.stderr.decode() == (
        default_start() + "stringsh: reading standard input failed (Bad file descriptor); stopped as at its end\n")
