"""Large files and spools: /open pages them in windows instead of refusing; TOO_LARGE has a hint."""

from __future__ import annotations

import re
from pathlib import Path

from stringsh.protocol.response import cut_header
from tests.conftest import run_script, spool_named

LIMITS = "[limits]\nmax_read_bytes = 1000\nmax_write_bytes = 100\n"  # a workspace policy may narrow the limits
WINDOW = "past the read limit, so it is shown in windows"


def test_the_spool_a_shell_reply_names_opens_at_the_line_asked(ws: Path) -> None:
    # a read limit the workspace narrows to: a window counts a file's lines within a time bound, which a spool of
    # many megabytes can reach on a busy machine, and 350 kB cannot
    (ws / "stringsh.toml").write_text("[limits]\nmax_read_bytes = 100000\n")
    size = sum(len(f"{n}\n") for n in range(1, 60001))
    out = run_script(ws, "!seq 1 60000\n")  # past the read limit
    spool = re.search(rf"whole output \({size} bytes, 60000 lines\) in ('[^']*'|\S+) \.\.\.\]", out)
    assert spool, out[-400:]
    rel = spool_named(spool.group(0)).relative_to(ws).as_posix()
    out = run_script(ws, f"/open {spool.group(1)} --from 2000 --to 2002\n/open {rel} --from 59999\n")
    assert out == (
        f"re: {cut_header(f'/open {spool.group(1)} --from 2000 --to 2002')}\n"
        f"Opened {rel}\n---\n2000\n2001\n2002\n\n"
        f"[window] Lines 2000-2002 of 60000 ({size} bytes: {WINDOW}). Read on: /open {rel} --from 2003\n"
        f"re: /open {rel} --from 59999\nOpened {rel}\n---\n59999\n60000\n\n"
        f"[window] Lines 59999-60000 of 60000 ({size} bytes: {WINDOW}).\n"
    )


def test_a_large_file_is_windowed_with_from_to_and_its_length(ws: Path) -> None:
    (ws / "stringsh.toml").write_text(LIMITS)
    big = b"".join(b"row %d\n" % i for i in range(1, 301))
    (ws / "big.txt").write_bytes(big)
    (ws / "one.txt").write_bytes(b"x" * 150_000)
    (ws / "bad.txt").write_bytes(b"caf\xe9\r\n" * 300)
    out = run_script(ws, (
        "/open big.txt --from 299\n/open big.txt --from 10 --to 11\n/open big.txt --from 301\n"
        "/open big.txt --from 5 --to 4\n/open big.txt --to x\n/open bad.txt --to 2\n/open one.txt\n"
    ))
    assert out == (
        f"re: /open big.txt --from 299\nOpened big.txt\n---\nrow 299\nrow 300\n\n"
        f"[window] Lines 299-300 of 300 (2292 bytes: {WINDOW}).\n"
        f"re: /open big.txt --from 10 --to 11\nOpened big.txt\n---\nrow 10\nrow 11\n\n"
        f"[window] Lines 10-11 of 300 (2292 bytes: {WINDOW}). Read on: /open big.txt --from 12\n"
        "re: /open big.txt --from 301\nERROR(INVALID_PAYLOAD): big.txt has 300 lines; --from 301 is past the end\n"
        "Read it from the start: /open big.txt\n"
        "re: /open big.txt --from 5 --to 4\nERROR(INVALID_PAYLOAD): --to 4 is before --from 5\n"
        "Give --to 5 or more, or leave it out.\n"
        "re: /open big.txt --to x\nERROR(INVALID_PAYLOAD): --to needs a line number (1 or more), got: x\n"
        "re: /open bad.txt --to 2\nOpened bad.txt\n---\ncaf\\xe9\ncaf\\xe9\n\n"
        f"[window] Lines 1-2 of 300 (1800 bytes: {WINDOW}). Bytes that are not UTF-8 are shown as \\xNN. "
        "Read on: /open bad.txt --from 3\n"
        f"re: /open one.txt\nOpened one.txt\n---\n{'x' * 100_000}\n\n"
        f"[window] Lines 1-1 of 1 (150000 bytes: {WINDOW}). Line 1 is cut at 100000 bytes; !cut -c or !fold in the "
        "shell shows all of it.\n"
    )
    assert (ws / "big.txt").read_bytes() == big  # reading never changes a byte


def test_to_ends_a_normal_view_too(ws: Path, dispatcher) -> None:
    (ws / "small.txt").write_text("a\nb\nc\nd\n")
    assert dispatcher.execute("/open small.txt --from 2 --to 3").text == (
        "re: /open small.txt --from 2 --to 3\nOpened small.txt\n---\nb\nc\n\n"
        "[--to 3] Shown up to line 3; the rest starts at source line 4 of 4. "
        "Read on: /open small.txt --from 4"
    )
    assert dispatcher.execute("/open small.txt --to 9").text == (
        "re: /open small.txt --to 9\nOpened small.txt\n---\na\nb\nc\nd"
    )


def test_too_large_always_says_what_to_do_next(ws: Path) -> None:
    (ws / "stringsh.toml").write_text(LIMITS)
    (ws / "big.md").write_bytes(b"# T\n\n## S\n\n" + b"text\n" * 300)
    out = run_script(ws, "/open big.md#s\n/edit big.md\n/write w.txt <<X\n" + "y" * 120 + "\nX\n")
    assert out == (
        "re: /open big.md#s\nERROR(TOO_LARGE): File is larger than the read limit (1511 > 1000 bytes): big.md\n"
        "Read it in windows: /open big.md --from N, or !head, !tail or !grep it; the policy's [limits] max_read_bytes "
        "raises the limit.\n"
        "re: /edit big.md\nERROR(TOO_LARGE): File is larger than the read limit (1511 > 1000 bytes): big.md\n"
        "Read it in windows: /open big.md --from N, or !head, !tail or !grep it; the policy's [limits] max_read_bytes "
        "raises the limit.\n"
        "re: /write w.txt\nERROR(TOO_LARGE): Write of 121 bytes exceeds the policy's limit of 100: w.txt\n"
        "Write it in parts: /write the first part, then /append the rest; the policy's [limits] max_write_bytes "
        "raises the limit.\n"
    )
    assert not (ws / "w.txt").exists()


def test_a_too_large_error_raised_without_a_hint_still_gets_one() -> None:
    from stringsh.errors import StringError

    assert StringError("TOO_LARGE", "Response to x is larger than 10 MB; it was not read.").text == (
        "Response to x is larger than 10 MB; it was not read.\n"
        "Ask for less at a time: a narrower request, or a window of a file (/open PATH --from N --to M)."
    )
    assert StringError("TOO_LARGE", "m", "own hint").text == "m\nown hint"
    assert StringError("NOT_FOUND", "m").text == "m"
