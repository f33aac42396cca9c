"""A file that is not UTF-8: shown as Latin-1 and marked so; edits written back in Latin-1, other bytes kept."""

from __future__ import annotations

from pathlib import Path

from stringsh.dispatcher import Dispatcher
from tests.conftest import run_script

LATIN = b"caf\xe9 au lait\r\ntwo\n"
MD = b"# Men\xfc\n\n## Sp\xe4t\n\nText\n"


def note(rel: str) -> str:
    return (f"[latin-1] {rel} is not UTF-8: shown as Latin-1 (ISO-8859-1), one character per byte. Edits keep it "
            f"Latin-1; to make it UTF-8, convert it (!iconv -f LATIN1 -t UTF-8 {rel} -o {rel}.utf8).")


def test_a_latin1_file_is_shown_and_edited_in_latin1(ws: Path, dispatcher: Dispatcher) -> None:
    """Shown as Latin-1 and marked so; /edit (whole file and block), /replace and /patch write Latin-1 back, every
    byte outside the edit kept; a character Latin-1 cannot hold is refused, never a silent conversion to UTF-8."""
    (ws / "latin.txt").write_bytes(LATIN)
    (ws / "l.md").write_bytes(MD)
    replies = [dispatcher.execute(request).text for request in (
        "/open latin.txt", "/edit latin.txt\ncafé noir\ntwo\n", "/open l.md", "/edit #spt\nSpät text\n",
        "/replace latin.txt\ntwo\n---\nzwei ü\n", "/patch\n--- a/l.md\n+++ b/l.md\n@@ -1 +1 @@\n-# Menü\n+# Menü à\n",
        "/replace latin.txt\nzwei\n---\n2 €\n", "/append latin.txt more",
    )]
    assert replies[:7] == [
        f"re: /open latin.txt\nOpened latin.txt\n---\ncafé au lait\ntwo\n\n{note('latin.txt')}",
        "re: /edit latin.txt\nEdited latin.txt (2 lines, whole file)",
        f"re: /open l.md\nOpened l.md\n---\n# Menü\n\n## Spät\n\nText\n\n{note('l.md')}",
        "re: /edit #spt\nEdited l.md#spt (5 lines): 1 line replaced by 1 line",
        "re: /replace latin.txt\nReplaced 1 occurrence in latin.txt",
        "re: /patch\nPatched l.md (+1 -1)",
        "re: /replace latin.txt\nERROR(ENCODING): Text for latin.txt has a character LATIN-1 cannot hold at index "
        "13; nothing was written.\nlatin.txt is Latin-1 and stays Latin-1: use characters it holds, or convert it "
        "first (!iconv -f LATIN1 -t UTF-8 latin.txt -o latin.txt.utf8).",
    ]
    assert replies[7].startswith("re: /append latin.txt more\nERROR(ENCODING): latin.txt is not valid UTF-8")
    assert (ws / "latin.txt").read_bytes() == b"caf\xe9 noir\r\nzwei \xfc\r\n"  # a whole-file edit: the dominant ending
    assert (ws / "l.md").read_bytes() == b"# Men\xfc \xe0\n\n## Sp\xe4t\n\nSp\xe4t text\n"
    for _ in range(4):
        assert dispatcher.execute("/undo").ok
    assert (ws / "latin.txt").read_bytes() == LATIN and (ws / "l.md").read_bytes() == MD


def test_a_whole_replacement_is_still_possible_and_undoable(ws: Path) -> None:
    (ws / "latin.txt").write_bytes(LATIN)
    out = run_script(ws, "/open latin.txt\n/write latin.txt <<X\ncafé\nX\n/undo\n")
    assert out.endswith(
        "re: /write latin.txt\nWritten: latin.txt (6 bytes, 1 line)\nre: /undo\nUndo: reverted latin.txt (2 lines)\n"
    )
    assert (ws / "latin.txt").read_bytes() == LATIN


def test_what_is_not_shown_as_latin1(ws: Path) -> None:
    (ws / "odd16.txt").write_bytes(b"\xff\xfea\x00b")  # a UTF-16 BOM with a cut character: refused, as before
    (ws / "bin.dat").write_bytes(b"\x00\x01caf\xe9")
    (ws / "cut.txt").write_bytes(b"price: 5\xe2\x82")  # UTF-8 cut mid-character: shown byte for byte, read-only
    (ws / "mixed.txt").write_bytes(b"caf\xc3\xa9 and caf\xe9\n")  # UTF-8 and Latin-1 in one file: ambiguous
    out = run_script(ws, "/open odd16.txt\n/open bin.dat\n/open cut.txt\n/replace cut.txt:L1 <<X\nx\nX\n"
                         "/edit --force mixed.txt <<X\nx\nX\n/patch <<X\n*** Begin Patch\n*** Update File: mixed.txt\n"
                         "-caf\u00c3\u00a9 and caf\u00e9\n+x\n*** End Patch\nX\n")
    assert out == (
        "re: /open odd16.txt\nERROR(ENCODING): odd16.txt is not valid UTF-16-LE (bytes 62 at offset 4); nothing was "
        "changed.\nstringsh keeps files byte-faithful: it reads UTF-8 (with or without BOM) and UTF-16 with a BOM.\n"
        "re: /open bin.dat\nOpened bin.dat\n---\n[binary file] application/octet-stream, 6 bytes (not shown)\n"
        "re: /open cut.txt\nOpened cut.txt\n---\nprice: 5\u00e2\\x82\n\n[read-only] cut.txt is not UTF-8, yet parts "
        "of it are: shown as Latin-1 (ISO-8859-1), one character per byte; edits are refused until its bytes are "
        f"repaired or converted (!iconv).\n{ambiguous('/replace cut.txt:L1', 'cut.txt')}"
        f"{ambiguous('/edit --force mixed.txt', 'mixed.txt')}{ambiguous('/patch', 'mixed.txt')}"
    )
    assert (ws / "cut.txt").read_bytes() == b"price: 5\xe2\x82"
    assert (ws / "mixed.txt").read_bytes() == b"caf\xc3\xa9 and caf\xe9\n"


def ambiguous(request: str, rel: str) -> str:
    return (f"re: {request}\nERROR(ENCODING): {rel} is not valid UTF-8, yet parts of it are: its encoding is "
            f"ambiguous, so it is not edited; nothing was changed.\nRead it with /open {rel}; repair its bytes or "
            "convert it (!iconv), then edit it.\n")


def test_windows_1252_is_detected_shown_and_kept(ws: Path, dispatcher: Dispatcher) -> None:
    """Bytes 0x80-0x9F, all defined in Windows-1252 (quotes, dashes, euro): shown and edited as cp1252; one of the
    five it leaves undefined (0x81) keeps the file Latin-1."""
    raw = b"\x93quoted\x94 \x80 5\r\ncaf\xe9\r\n"
    (ws / "w.txt").write_bytes(raw)
    (ws / "odd.txt").write_bytes(b"x\x81y\n")
    replies = [dispatcher.execute(request).text for request in (
        "/open w.txt", "/replace w.txt\n€ 5\n---\n€ 6 – fin\n", "/replace w.txt\ncafé\n---\nΩ\n", "/open odd.txt")]
    assert replies == [
        "re: /open w.txt\nOpened w.txt\n---\n\u201cquoted\u201d \u20ac 5\ncafé\n\n[cp1252] w.txt is not UTF-8: shown "
        "as Windows-1252 (cp1252), detected from its bytes 0x80-0x9F, one character per byte. Edits keep it cp1252; "
        "to make it UTF-8, convert it (!iconv -f CP1252 -t UTF-8 w.txt -o w.txt.utf8).",
        "re: /replace w.txt\nReplaced 1 occurrence in w.txt",
        "re: /replace w.txt\nERROR(ENCODING): Text for w.txt has a character CP1252 cannot hold at index 20; nothing "
        "was written.\nw.txt is cp1252 and stays cp1252: use characters it holds, or convert it first (!iconv -f "
        "CP1252 -t UTF-8 w.txt -o w.txt.utf8).",
        f"re: /open odd.txt\nOpened odd.txt\n---\nx\\x81y\n\n{note('odd.txt')}",  # U+0081, a C1 control: escaped
    ]
    assert (ws / "w.txt").read_bytes() == b"\x93quoted\x94 \x80 6 \x96 fin\r\ncaf\xe9\r\n"
    assert dispatcher.execute("/undo").ok
    assert (ws / "w.txt").read_bytes() == raw
