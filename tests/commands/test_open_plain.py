"""`/open … --plain`: a symbol, a markdown block, a whole file or a line range as its exact text (no numbers, no
rendering, no cut), the title saying what the text cannot; every bad combination refused with a code and a hint,
the real dispatcher on real files."""

from __future__ import annotations

from pathlib import Path

import pytest

from stringsh.dispatcher import Dispatcher

APP = '''import os


@decorator
def f(x):
    """Doc."""
    return x + 1


class C:
    def m(self):
        return 2
'''

DOC = """---
title: T
---
# Title

Read [the list][r] and [!include:x](other.md).

## Setup

<!-- #tip -->
A tip.
<!-- /tip -->

```act.hello
echo hi
```

[r]: https://example.org
"""


@pytest.fixture
def files(ws: Path) -> Path:
    (ws / "app.py").write_text(APP)
    (ws / "doc.md").write_text(DOC)
    (ws / "other.md").write_text("included\n")
    (ws / "nonl.txt").write_bytes(b"one\r\ntwo")
    (ws / "latin.txt").write_bytes(b"caf\xe9\n")
    (ws / "bom.txt").write_bytes(b"\xef\xbb\xbfbom\n")
    (ws / "empty.txt").write_bytes(b"")
    (ws / "bin.dat").write_bytes(b"x\x00y")
    (ws / "sub").mkdir()
    return ws


def reply(dispatcher: Dispatcher, request: str) -> str:
    return dispatcher.execute(request).text.removeprefix(f"re: {request}\n")


def test_a_symbol_is_its_lines_alone(files: Path, dispatcher: Dispatcher) -> None:
    assert reply(dispatcher, "/open app.py#f --plain") == (
        'Opened app.py#f (plain, lines 4-7)\n---\n@decorator\ndef f(x):\n    """Doc."""\n    return x + 1')
    assert reply(dispatcher, "/open --plain app.py#C.m") == (
        "Opened app.py#C.m (plain, lines 11-12)\n---\n    def m(self):\n        return 2")
    assert dispatcher.execute("/symbols f").ok
    assert reply(dispatcher, "/open @s1 --plain") == reply(dispatcher, "/open app.py#f --plain")


def test_a_long_symbol_is_whole_where_the_numbered_view_is_cut(files: Path, dispatcher: Dispatcher) -> None:
    body = "def long():\n" + "".join(f"    x{i} = {i}\n" for i in range(900)) + "    return x0"
    (files / "big.py").write_text(f"import os\n\n\n{body}\n")
    assert "[cut]" in reply(dispatcher, "/open big.py#long")
    assert reply(dispatcher, "/open big.py#long --plain") == f"Opened big.py#long (plain, lines 4-905)\n---\n{body}"


def test_a_markdown_block_is_its_source_lines_as_an_edit_replaces_them(files: Path, dispatcher: Dispatcher) -> None:
    assert reply(dispatcher, "/open doc.md#tip --plain") == "Opened doc.md#tip (plain, line 11)\n---\nA tip."
    assert reply(dispatcher, "/open doc.md#setup --plain") == (
        "Opened doc.md#setup (plain, lines 8-18)\n---\n## Setup\n\n<!-- #tip -->\nA tip.\n<!-- /tip -->\n\n"
        "```act.hello\necho hi\n```\n\n[r]: https://example.org")
    # sent back whole, it changes nothing (the heading at its start stands for the heading)
    section = reply(dispatcher, "/open doc.md#setup --plain").split("\n---\n", 1)[1]
    assert dispatcher.execute(f"/edit doc.md#setup\n{section}").ok
    assert (files / "doc.md").read_text() == DOC


def test_a_whole_file_is_its_exact_text(files: Path, dispatcher: Dispatcher) -> None:
    assert reply(dispatcher, "/open doc.md --plain") == f"Opened doc.md (plain, 18 lines)\n---\n{DOC.rstrip()}"
    assert reply(dispatcher, "/open nonl.txt --plain") == (
        "Opened nonl.txt (plain, 2 lines, no final newline)\n---\none\ntwo")
    assert reply(dispatcher, "/open latin.txt --plain") == "Opened latin.txt (plain, 1 line, latin-1)\n---\ncafé"
    assert reply(dispatcher, "/open bom.txt --plain") == "Opened bom.txt (plain, 1 line, BOM)\n---\nbom"
    assert reply(dispatcher, "/open empty.txt --plain") == "Opened empty.txt (plain, 0 lines)\n---\n"
    assert reply(dispatcher, "/open app.py:L4-L5 --plain") == "Opened app.py:L4-L5 (plain)\n---\n@decorator\ndef f(x):"


def test_secrets_are_masked_as_every_read_is(files: Path, dispatcher: Dispatcher) -> None:
    (files / "keys.py").write_text("def key():\n    return 'AKIAQ7W3E5R7T9Y1U3I5'\n")
    assert reply(dispatcher, "/open keys.py#key --plain") == (
        "Opened keys.py#key (plain, lines 1-2)\n---\ndef key():\n    return '***REDACTED***'")


def test_the_open_document_and_its_blocks(files: Path, dispatcher: Dispatcher) -> None:
    """A plain read is not made the open document (as a line range is not); the open one is read plain by
    `/open --plain` and `/open #block --plain`."""
    assert reply(dispatcher, "/open doc.md#tip") == "Opened doc.md#tip\n---\nA tip."
    assert reply(dispatcher, "/open app.py --plain") == f"Opened app.py (plain, 12 lines)\n---\n{APP.rstrip()}"
    assert reply(dispatcher, "/open --plain") == "Opened doc.md#tip (plain, line 11)\n---\nA tip."
    title = "\n".join(DOC.split("\n")[3:18])
    assert reply(dispatcher, "/open #title --plain") == f"Opened doc.md#title (plain, lines 4-18)\n---\n{title}"


def test_a_plain_read_counts_as_reading_the_file(files: Path, dispatcher: Dispatcher) -> None:
    refused = dispatcher.execute("/write nonl.txt\nnew")
    assert (refused.code, refused.text.split("\n")[:2]) == ("CONFLICT", [
        "re: /write nonl.txt", "ERROR(CONFLICT): Refusing to overwrite existing file not read in this topic: nonl.txt"])
    assert dispatcher.execute("/open nonl.txt --plain").ok
    assert dispatcher.execute("/write nonl.txt\nnew").ok


BAD = [
    ("/open app.py --plain --from 3", "INVALID_PAYLOAD",
     "--plain shows a file, block or symbol whole: --from and --to do not go with it\n"
     "For those lines exactly, name them as a range: /open app.py:L3-L402 --plain; or leave --plain out."),
    ("/open app.py#f --plain --from 4 --to 6", "INVALID_PAYLOAD",
     "--plain shows a file, block or symbol whole: --from and --to do not go with it\n"
     "For those lines exactly, name them as a range: /open app.py:L4-L6 --plain; or leave --plain out."),
    ("/open app.py:L4-L5 --plain --to 9", "INVALID_PAYLOAD",
     "--plain shows a file, block or symbol whole: --from and --to do not go with it\n"
     "For those lines exactly, name them as a range: /open app.py:L4-L9 --plain; or leave --plain out."),
    ("/open app.py:L4-L9 --from 6 --plain", "INVALID_PAYLOAD",
     "--plain shows a file, block or symbol whole: --from and --to do not go with it\n"
     "For those lines exactly, name them as a range: /open app.py:L6-L9 --plain; or leave --plain out."),
    ("/open app.py:L11-L99 --plain", "INVALID_TARGET",
     "Line range out of bounds: app.py:L11-L99 (file has 12 lines)\nIt ends at line 12: /open app.py:L11-L12 --plain"),
    ("/open empty.txt:L1 --plain", "INVALID_TARGET",
     "Line range out of bounds: empty.txt:L1 (file has 0 lines)\nempty.txt is empty."),
    ("/open sub --plain", "INVALID_TARGET", "Is a directory: sub\nUse /ls sub: a folder has no text to show plain."),
    ("/open bin.dat --plain", "BINARY_FILE", "Binary file: bin.dat (application/octet-stream, 3 bytes)"),
    ("/open https://example.org/a#b --plain", "INVALID_TARGET",
     "--plain shows a file, block or symbol whole from the workspace, not a web page: https://example.org/a#b\n"
     "/source https://example.org/a shows what the server sent."),
    ("/open app.py#nope --plain", "BLOCK_NOT_FOUND", "Block not found: #nope in app.py\nAvailable blocks: f, C, C.m"),
    ("/open @home --plain", "INVALID_TARGET",
     "--plain follows a value shortcut (/symbols numbers its hits @s1…), not a page's: @home\n"
     "Open it first (/open @home), then /open --plain."),
    ("/open missing.py --plain", "NOT_FOUND", "File not found: missing.py\n/ls shows what is there."),
    ("/open .env --plain", "SECRET_DENIED", "Access to a secret file is denied: .env\n"
     "The policy's secret deny list covers this path."),
    ("/open --plane app.py", "INVALID_PAYLOAD", "Unknown flag for /open: --plane\nFlags of /open: --from, --to, "
     "--plain. A path that starts with - goes after --: /open -- --plane"),
]


@pytest.mark.parametrize(("request_", "code", "text"), BAD, ids=[r for r, _, _ in BAD])
def test_bad_combinations_are_refused_with_a_hint(files: Path, dispatcher: Dispatcher, request_: str, code: str,
                                                  text: str) -> None:
    before = {p: p.read_bytes() for p in files.rglob("*") if p.is_file() and ".stringsh" not in p.parts}
    got = dispatcher.execute(request_)
    assert (got.code, got.text) == (code, f"re: {request_}\nERROR({code}): {text}")
    assert {p: p.read_bytes() for p in files.rglob("*") if p.is_file() and ".stringsh" not in p.parts} == before


def test_a_file_past_the_read_limit_is_refused_with_its_windows(files: Path) -> None:
    (files / "stringsh.toml").write_text("[limits]\nmax_read_bytes = 64\n")
    (files / "log.txt").write_text("line\n" * 40)
    dispatcher = Dispatcher(files)
    try:
        assert reply(dispatcher, "/open log.txt --plain") == (
            "ERROR(TOO_LARGE): log.txt is 200 bytes, past the read limit of 64: --plain shows a file, block or symbol "
            "whole\nRead it in windows: /open log.txt --from 1; exact lines in the shell: !sed -n '1,400p' log.txt")
    finally:
        dispatcher.close()
