"""`{_diff}`: every mutation reply carries String's line diff when it is on, never a secret."""

from __future__ import annotations

from pathlib import Path

from stringsh.documents.diffreply import format_diff
from tests.conftest import run_script

TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"


def test_every_mutation_reply_carries_the_diff_when_on(ws: Path) -> None:
    (ws / "doc.md").write_bytes(b"# Doc\n\n## Setup\n\nold setup\n\n## Usage\n\nuse it\n")
    out = run_script(ws, (
        "/write plain.txt one\n"
        "/set {_diff} = on\n"
        f"/write a.txt <<X\nalpha\ntoken = {TOKEN}\nX\n"
        "/write a.txt <<X\nalpha\nX\n"
        "/write a.txt <<X\nalpha\nX\n"
        "/append a.txt beta\n"
        "/edit doc.md#setup <<X\nnew setup\nX\n"
        "/undo\n"
        "/open a.txt\n"
        "/edit a.txt <<X\nALPHA\nbeta\nX\n"
        "/set {_diff} = off\n"
        "/append a.txt gamma\n"
    ))
    assert out == (
        "re: /write plain.txt one\nCreated: plain.txt (4 bytes, 1 line)\n"
        're: /set {_diff} = on\n{_diff} = "on"\n'
        "re: /write a.txt\nCreated: a.txt (55 bytes, 2 lines)\n---\n"
        "1 + alpha\n2 + token = ***REDACTED***\n---\nUse /undo to revert.\n"
        "re: /write a.txt\nWritten: a.txt (6 bytes, 1 line)\n---\n"
        "1 1 | alpha\n2   - token = ***REDACTED***\n---\nUse /undo to revert.\n"
        "re: /write a.txt\nWritten: a.txt (6 bytes, 1 line)\n---\n(no changes)\n---\nUse /undo to revert.\n"
        "re: /append a.txt beta\nAppended to: a.txt (now 11 bytes)\n---\n"
        "1 1 | alpha\n  2 + beta\n---\nUse /undo to revert.\n"
        "re: /edit doc.md#setup\nEdited doc.md#setup (9 lines): 1 line replaced by 1 line\n---\n"
        "2 2 | \n3 3 | ## Setup\n4 4 | \n5   - old setup\n  5 + new setup\n6 6 | \n7 7 | ## Usage\n8 8 | \n"
        "---\nUse /undo to revert.\n"
        "re: /undo\nUndo: reverted doc.md (9 lines)\n---\n"
        "2 2 | \n3 3 | ## Setup\n4 4 | \n5   - new setup\n  5 + old setup\n6 6 | \n7 7 | ## Usage\n8 8 | \n"
        "re: /open a.txt\nOpened a.txt\n---\nalpha\nbeta\n"
        "re: /edit a.txt\nEdited a.txt (2 lines, whole file)\n---\n"
        "1   - alpha\n  1 + ALPHA\n2 2 | beta\n---\nUse /undo to revert.\n"
        're: /set {_diff} = off\n{_diff} = "off"\n'
        "re: /append a.txt gamma\nAppended to: a.txt (now 17 bytes)\n"
    )
    assert TOKEN not in out
    assert (ws / "a.txt").read_bytes() == b"ALPHA\nbeta\ngamma\n"
    assert (ws / "doc.md").read_bytes() == b"# Doc\n\n## Setup\n\nold setup\n\n## Usage\n\nuse it\n"


def test_context_and_max_lines_settings_and_bad_values(ws: Path) -> None:
    (ws / "nums.txt").write_text("".join(f"{n}\n" for n in range(1, 13)))
    out = run_script(ws, (
        "/set {_diff} = on\n/set {_diff_context} = 1\n/set {_diff_max_lines} = 5\n/open nums.txt\n"
        "/write nums.txt <<X\n1\n2\nthree\n4\n5\n6\n7\n8\nnine\nten\n11\n12\nX\n"
        "/set {_diff_context} = -2\n/set {_diff_max_lines} = lots\n"
        "/write nums.txt <<X\n1\n2\n3\n4\n5\n6\n7\n8\nnine\nten\n11\n12\nX\n"
    ))
    replies = out.split("re: ")
    assert replies[5] == (
        "/write nums.txt\nWritten: nums.txt (35 bytes, 12 lines)\n---\n"
        " 2  2 | 2\n 3    - 3\n    3 + three\n 4  4 | 4\n...\n"
        "... (4 more lines changed, truncated at 5 lines)\n---\nUse /undo to revert.\n"
    )
    assert replies[8] == (  # invalid settings fall back to 3 lines of context and 50 lines
        "/write nums.txt\nWritten: nums.txt (31 bytes, 12 lines)\n---\n"
        " 1  1 | 1\n 2  2 | 2\n 3    - three\n    3 + 3\n 4  4 | 4\n 5  5 | 5\n 6  6 | 6\n---\nUse /undo to revert.\n"
    )


def test_format_diff_gaps_and_new_file() -> None:
    old = "".join(f"l{n}\n" for n in range(1, 21))
    new = old.replace("l2\n", "L2\n").replace("l18\n", "L18\n")
    assert format_diff(old, new, context=1) == (
        " 1  1 | l1\n 2    - l2\n    2 + L2\n 3  3 | l3\n...\n17 17 | l17\n18    - l18\n   18 + L18\n19 19 | l19"
    )
    assert format_diff(None, "a\r\nb") == "1 + a\n2 + b"
    assert format_diff("", "") == "(no changes)"
    assert format_diff("x\n", "") == "1   - x"
