"""Plain mode for agents: `stringsh --plain`, `TERM=dumb` and piped stdin give clean text, byte for byte the replies
of `stringsh run` on the same script, and not one escape byte in the whole pty transcript."""

from __future__ import annotations

import ctypes
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import default_start, run_stringsh
from tests.frontends.scripts import split_replies
from tests.repl.harness import COLUMNS, WAIT, Terminal

PROMPT = "› ".encode()
CONTINUATION = "… ".encode()
#: Every kind of reply: listing, variables, heredoc body, document, errors, comment, unterminated quote, unicode.
SCRIPT = [
    "/ls",
    '/set {name} = "notes.md"',
    "/write {name} <<EOF",
    "# Notes",
    "",
    "Ünïcode — line",
    "EOF",
    "# a comment line: no reply",
    "/open notes.md",
    "/open notes.md#nope",
    "/ls docs",
    "/nope",
    "hello there",
    "/open 'unclosed",
    "[r1] /info",
    "/help ls",
]


def fresh(ws: Path) -> None:
    """The same workspace, at the same path, as before either run (replies name the root folder)."""
    shutil.rmtree(ws)
    ws.mkdir()
    (ws / "docs").mkdir()
    (ws / "docs" / "guide.md").write_text("# Guide\n\n## Install\n\nRun it.\n")
    (ws / "README.md").write_text("# Readme\n")


def same_state(replies: bytes) -> bytes:
    """`/info`'s state folder line made alike: each run here has state folders of its own (a fresh workspace each
    time, a HOME of its own), the one line that may differ between two front ends' replies."""
    return re.sub(rb"(?m)^state:     .*$", b"state:     STATE/", replies)


def expected_replies(ws: Path, tmp_path: Path, columns: int | None = None) -> bytes:
    """The replies of `run`; `columns`: as wide a terminal as the loop compared runs in (help replies wrap)."""
    fresh(ws)
    script = tmp_path / "script.str"
    script.write_text("\n".join(SCRIPT) + "\n")
    result = run_stringsh(["run", "--keep-going", str(script)], cwd=ws,
                          env={"COLUMNS": str(columns)} if columns else None)
    assert result.returncode == 1 and result.stdout.startswith(b"re: /ls\n")
    fresh(ws)
    return result.stdout


def drive(term: Terminal) -> bytes:
    """Type the script line by line, each after its prompt, and return the replies the program printed."""
    replies = b""
    deadline = time.monotonic() + WAIT
    while not term.transcript.endswith(PROMPT) and time.monotonic() < deadline:
        term.pump()
    in_body = False
    for line in SCRIPT:
        mark = len(term.transcript)
        echo = line.encode() + b"\r\n"
        term.send(line + "\r")
        comment = line.startswith("#") and not in_body
        in_body = line.endswith("<<EOF") or (in_body and line != "EOF")
        if comment:
            term.wait_transcript(echo + PROMPT)  # a comment between requests: no reply, a fresh prompt
            continue
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            term.pump()
            if len(term.transcript) > mark and term.transcript.endswith((PROMPT, CONTINUATION)):
                break
        segment = bytes(term.transcript[mark:])
        assert segment.startswith(echo), segment
        body = segment[len(echo) :]
        if body.endswith(CONTINUATION) and body == CONTINUATION:
            continue  # inside a heredoc: only the continuation prompt
        assert body.endswith(PROMPT), body
        replies += body[: -len(PROMPT)].replace(b"\r\n", b"\n")
    term.send("\x04")
    assert term.wait_exit() == 0
    return replies


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (["--plain"], {"TERM": "xterm-256color"}),
        ([], {"TERM": "dumb"}),
        (["--plain"], {"TERM": "dumb", "NO_COLOR": "1"}),
    ],
    ids=["--plain", "TERM=dumb", "both"],
)
def test_plain_mode_in_a_pty_matches_run_and_has_no_escapes(
    ws: Path, tmp_path: Path, args: list[str], env: dict[str, str]
) -> None:
    expected = expected_replies(ws, tmp_path, COLUMNS)  # the pty's width: help replies wrap to it
    term = Terminal(args, ws, {"STRINGSH_HISTORY": str(tmp_path / "h"), **env}, answer_cpr=False)
    try:
        replies = drive(term)
    finally:
        term.close()
    transcript = bytes(term.transcript)
    assert b"\x1b" not in transcript
    assert transcript.startswith(
        (default_start().replace("\n", "\r\n") + "stringsh — /help lists commands").encode())
    assert same_state(replies) == same_state(expected)
    assert not (tmp_path / "h").exists()  # plain mode keeps no history file


def test_piped_stdin_is_plain_and_matches_run(ws: Path, tmp_path: Path) -> None:
    expected = expected_replies(ws, tmp_path)
    script = "\n".join(SCRIPT) + "\n"
    result = subprocess.run(
        [sys.executable, "-m", "stringsh"],
        cwd=ws,
        input=script.encode(),
        capture_output=True,
        timeout=60,
        env={"PATH": os.environ["PATH"], "TERM": "xterm-256color", "STRINGSH_HISTORY": str(tmp_path / "h"),
             "PYTHONPATH": str(Path(__file__).resolve().parents[2])},  # this checkout, wherever it is installed
    )
    assert result.returncode == 1  # a request failed, as with run --keep-going; every request was served
    assert b"\x1b" not in result.stdout
    # piped, nobody sees prompts: each reply ends with the end-of-reply line (docs/front-ends.md, end of reply)
    marked = "".join(f"{reply}\n</𝒞>\n" for reply in split_replies(expected.decode()))
    assert same_state(result.stdout) == same_state(marked.encode())


def still_serves_and_leaves(term: Terminal) -> None:
    """The loop goes on after what the test did: `/ls` answers, Ctrl-D leaves with status 0."""
    term.send("/ls\r")
    term.wait_transcript(b"Listing ./")
    term.send("\x04")
    assert term.wait_exit() == 0


def test_plain_mode_survives_bad_bytes_and_ctrl_c(ws: Path, tmp_path: Path) -> None:
    fresh(ws)
    term = Terminal(["--plain"], ws, {"STRINGSH_HISTORY": str(tmp_path / "h")}, answer_cpr=False)
    try:
        term.wait_transcript(PROMPT)
        term.send("\x03")  # Ctrl-C at the prompt: a fresh prompt, no traceback
        term.wait_for_transcript_count(PROMPT, 2)
        term.child.send(b"/open \xff\xfe\r")
        term.wait_transcript(b"ERROR(INVALID_PAYLOAD): Request is not valid UTF-8")
        still_serves_and_leaves(term)
    finally:
        term.close()
    assert b"\x1b" not in bytes(term.transcript)
    assert b"Traceback" not in bytes(term.transcript)


def test_ctrl_c_the_kernel_hands_to_another_thread_still_gives_a_fresh_prompt(ws: Path, tmp_path: Path) -> None:
    """A process-wide SIGINT may be delivered to any thread (the document watcher's, the audit writer's); the
    main thread waiting for input must wake all the same. The signal goes here to a thread that is not the main
    one, as the kernel may choose; before the wake-up pipe the prompt waited for the next key."""
    fresh(ws)
    (ws / "a.md").write_text("# A\n\nhello\n")
    term = Terminal(["--plain"], ws, {"STRINGSH_HISTORY": str(tmp_path / "h")}, answer_cpr=False)
    try:
        term.wait_transcript(PROMPT)
        term.send("/open a.md\r")  # the document watcher's threads start
        term.wait_transcript(b"Opened a.md")
        term.wait_for_transcript_count(PROMPT, 2)
        pid = term.child.pid
        others = sorted(int(task) for task in os.listdir(f"/proc/{pid}/task") if int(task) != pid)
        assert others, "no thread but the main one"
        libc = ctypes.CDLL(None, use_errno=True)
        assert libc.tgkill(pid, others[0], signal.SIGINT) == 0, os.strerror(ctypes.get_errno())
        term.wait_for_transcript_count(PROMPT, 3)
        still_serves_and_leaves(term)
    finally:
        term.close()
    assert b"Traceback" not in bytes(term.transcript)
