"""`/open path:L100-L200` and `/edit path:L100-L200` through `stringsh run`: numbered windows with the file's own line
numbers, `--from N` continuation inside the range, files past the read limit streamed, secrets masked, bad ranges."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_stringsh

TOKEN = "ghp_" + "Q7" * 18
LIMITS = "[limits]\nmax_read_bytes = 1000\n"  # a workspace policy may narrow the read limit


def run(ws: Path, script: str) -> str:
    proc = run_stringsh(["run", "--keep-going", "-"], ws, stdin=script)
    return proc.stdout.decode()


def long_file(ws: Path, name: str = "big.txt", lines: int = 10_000) -> None:
    (ws / name).write_text("".join(f"line {i}\n" for i in range(1, lines + 1)))


def test_open_and_edit_show_a_numbered_window_with_absolute_numbers(ws: Path) -> None:
    long_file(ws)
    out = run(ws, "/open big.txt:L100-L102\n/edit big.txt:L9999-L10000\n/edit big.txt:L5\n")
    assert out == (
        "re: /open big.txt:L100-L102\nOpened big.txt:L100-L102\n---\n"
        "100 | line 100\n101 | line 101\n102 | line 102\n\n(lines 100-102 of 10000)\n"
        "re: /edit big.txt:L9999-L10000\n[editing: big.txt:L9999-L10000]\n---\n"
        " 9999 | line 9999\n10000 | line 10000\n\n(lines 9999-10000 of 10000)\n"
        "re: /edit big.txt:L5\n[editing: big.txt:L5]\n---\n5 | line 5\n\n(line 5 of 10000)\n"
    )


def test_a_window_past_the_budget_reads_on_with_from(ws: Path) -> None:
    long_file(ws)
    out = run(ws, "/set {_max_lines} = 2\n/edit big.txt:L10-L14\n/edit big.txt:L10-L14 --from 12\n"
                  "/edit big.txt:L10-L14 --from 14\n")
    assert out.split("re: /edit", 1)[1] == (
        " big.txt:L10-L14\n[editing: big.txt:L10-L14]\n---\n10 | line 10\n11 | line 11\n\n(lines 10-14 of 10000)\n"
        "[cut] Output limit of 2 lines reached. Read on: /edit big.txt:L10-L14 --from 12\n"
        "re: /edit big.txt:L10-L14 --from 12\n[editing: big.txt:L10-L14]\n---\n12 | line 12\n13 | line 13\n\n"
        "(lines 10-14 of 10000)\n[cut] Output limit of 2 lines reached. Read on: /edit big.txt:L10-L14 --from 14\n"
        "re: /edit big.txt:L10-L14 --from 14\n[editing: big.txt:L10-L14]\n---\n14 | line 14\n\n"
        "(lines 10-14 of 10000)\n"
    )


def test_a_file_past_the_read_limit_is_streamed_with_the_same_replies(ws: Path) -> None:
    (ws / "stringsh.toml").write_text(LIMITS)
    (ws / "huge.txt").write_text("".join(f"row {i} {TOKEN}\n" if i == 7 else f"row {i}\n" for i in range(1, 501)))
    out = run(ws, "/open huge.txt:L6-L8\n/edit huge.txt:L499-L501\n/set {_max_lines} = 2\n/open huge.txt:L5-L8\n"
                  "/edit huge.txt:L7\n")
    assert TOKEN not in out
    mask = "***REDACTED***"
    assert out == (
        f"re: /open huge.txt:L6-L8\nOpened huge.txt:L6-L8\n---\n6 | row 6\n7 | row 7 {mask}\n8 | row 8\n\n"
        "(lines 6-8 of 500)\n"
        "re: /edit huge.txt:L499-L501\n"
        "ERROR(INVALID_TARGET): Line range out of bounds: huge.txt:L499-L501 (file has 500 lines)\n"
        "It ends at line 500: /edit huge.txt:L499-L500\n"
        're: /set {_max_lines} = 2\n{_max_lines} = "2"\n'
        "re: /open huge.txt:L5-L8\nOpened huge.txt:L5-L8\n---\n5 | row 5\n6 | row 6\n\n(lines 5-8 of 500)\n"
        "[cut] Output limit of 2 lines reached. Read on: /open huge.txt:L5-L8 --from 7\n"
        f"re: /edit huge.txt:L7\n[editing: huge.txt:L7]\n---\n7 | row 7 {mask}\n\n(line 7 of 500)\n"
        f"[masked] Secrets are shown as {mask}. A body that keeps {mask} in their place is refused: rewrite those "
        "lines in full.\n"
    )


def test_crlf_lines_and_a_masked_line_in_a_normal_file(ws: Path) -> None:
    (ws / "c.md").write_bytes(f"# T\r\n\r\nToken: {TOKEN}\r\nend".encode())
    out = run(ws, "/open c.md:L3-L4\n")
    assert out == (
        "re: /open c.md:L3-L4\nOpened c.md:L3-L4\n---\n3 | Token: ***REDACTED***\n4 | end\n\n(lines 3-4 of 4)\n"
    )


def test_bad_ranges_are_coded_errors_with_hints(ws: Path) -> None:
    long_file(ws, lines=20)
    (ws / "empty.txt").write_text("")
    (ws / "d").mkdir()
    out = run(ws, "/open big.txt:L0\n/edit big.txt:L5-L3\n/open big.txt:Lten\n/open big.txt:L15-L25\n"
                  "/open big.txt:L30-L35\n/edit empty.txt:L1\n/open big.txt:L1-L3 --from 9\n"
                  "/open big.txt:L1-L3 --to 5\n/open nope.txt:L1\n/open d:L1\n/edit big.txt:L2 <<EOF\nx\nEOF\n")
    assert out == (
        "re: /open big.txt:L0\nERROR(INVALID_TARGET): Invalid line range: L0-L0\n"
        "Lines count from 1 and a range runs upward, as in big.txt:L1.\n"
        "re: /edit big.txt:L5-L3\nERROR(INVALID_TARGET): Invalid line range: L5-L3\n"
        "Lines count from 1 and a range runs upward, as in big.txt:L3-L5.\n"
        "re: /open big.txt:Lten\nERROR(INVALID_TARGET): Invalid line range: big.txt:Lten\n"
        "Name lines as big.txt:L5 or big.txt:L3-L4 (1-based, inclusive).\n"
        "re: /open big.txt:L15-L25\nERROR(INVALID_TARGET): Line range out of bounds: big.txt:L15-L25 (file has 20 "
        "lines)\nIt ends at line 20: /open big.txt:L15-L20\n"
        "re: /open big.txt:L30-L35\nERROR(INVALID_TARGET): Line range out of bounds: big.txt:L30-L35 (file has 20 "
        "lines)\nIt ends at line 20: /open big.txt:L15-L20\n"
        "re: /edit empty.txt:L1\nERROR(INVALID_TARGET): Line range out of bounds: empty.txt:L1 (file has 0 lines)\n"
        "empty.txt is empty.\n"
        "re: /open big.txt:L1-L3 --from 9\nERROR(INVALID_PAYLOAD): --from 9 is outside big.txt:L1-L3\n"
        "Give --from 1 to 3, or leave it out.\n"
        "re: /open big.txt:L1-L3 --to 5\nERROR(INVALID_PAYLOAD): --to does not go with a line range: big.txt:L1-L3\n"
        "Name the last line in the range: /open big.txt:L1-L5\n"
        "re: /open nope.txt:L1\nERROR(NOT_FOUND): File not found: nope.txt\n/ls shows what is there.\n"
        "re: /open d:L1\nERROR(INVALID_TARGET): Is a directory: d\nUse /open d\n"
        "re: /edit big.txt:L2\nERROR(INVALID_TARGET): /edit replaces a whole file or a block, not lines: big.txt:L2\n"
        "Replace lines with /replace big.txt:L2 and the same body.\n"
    )


def test_a_file_really_named_like_a_range_still_opens(ws: Path) -> None:
    (ws / "notes:Lx").write_text("hello\n")
    assert run(ws, "/open notes:Lx\n") == "re: /open notes:Lx\nOpened notes:Lx\n---\nhello\n"


def test_a_range_view_counts_as_reading_for_a_later_whole_file_edit(ws: Path) -> None:
    (ws / "a.txt").write_text("1\n2\n")
    out = run(ws, "/edit a.txt:L1\n/edit a.txt <<EOF\nnew\nEOF\n")
    assert out.endswith("re: /edit a.txt\nEdited a.txt (1 line, whole file)\n")


def test_help_pages_name_line_ranges(ws: Path) -> None:
    out = run(ws, "/help open\n/help edit\n")
    assert "/open big.log:L9000-L9100" in out
    assert "/edit app.py:L100-L200" in out
