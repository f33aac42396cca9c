"""A file that is not UTF-8: shown as Latin-1 and marked read-only; edits refused, bytes kept."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_script

LATIN = b"caf\xe9 au lait\r\ntwo\n"
MD = b"# Men\xfc\n\n## Sp\xe4t\n\nText\n"


def note(rel: str) -> str:
    return (f"[read-only] {rel} is not UTF-8: shown as Latin-1 (ISO-8859-1), one character per byte. /edit refuses "
            f"it; convert it first (!iconv -f LATIN1 -t UTF-8 {rel} -o {rel}.utf8), or replace it whole with "
            f"/write --force {rel}.")


def refusal(rel: str) -> str:
    return (f"ERROR(ENCODING): {rel} is not UTF-8 (shown as Latin-1, read-only); nothing was changed.\n"
            f"Read it with /open {rel}. To edit it, convert it to UTF-8 first (!iconv -f LATIN1 -t UTF-8 {rel} -o "
            f"{rel}.utf8), or replace it whole with /write --force {rel}.")


def test_a_latin1_file_is_shown_read_only_and_every_edit_is_refused(ws: Path) -> None:
    (ws / "latin.txt").write_bytes(LATIN)
    (ws / "l.md").write_bytes(MD)
    out = run_script(ws, (
        "/open latin.txt\n/refresh\n/edit latin.txt\n/edit latin.txt <<X\nnew\nX\n"
        "/open l.md\n/edit #spt <<X\nx\nX\n/edit l.md#spt <<X\nx\nX\n/append latin.txt more\n"
    ))
    assert out == (
        f"re: /open latin.txt\nOpened latin.txt\n---\ncafé au lait\ntwo\n\n{note('latin.txt')}\n"
        f"re: /refresh\nRefreshed latin.txt\n---\ncafé au lait\ntwo\n\n{note('latin.txt')}\n"
        f"re: /edit latin.txt\n{refusal('latin.txt')}\n"
        f"re: /edit latin.txt\n{refusal('latin.txt')}\n"
        f"re: /open l.md\nOpened l.md\n---\n# Menü\n\n## Spät\n\nText\n\n{note('l.md')}\n"
        f"re: /edit #spt\n{refusal('l.md')}\n"
        f"re: /edit l.md#spt\n{refusal('l.md')}\n"
        "re: /append latin.txt more\nERROR(ENCODING): latin.txt is not valid UTF-8 (bytes e9 20 61 75 at offset 3); "
        "nothing was changed.\nstringsh keeps files byte-faithful: it reads UTF-8 (with or without BOM) and UTF-16 "
        "with a BOM. /open latin.txt shows it as Latin-1; to append, convert it to UTF-8 first "
        "(!iconv -f LATIN1 -t UTF-8 latin.txt -o latin.txt.utf8).\n"
    )
    assert (ws / "latin.txt").read_bytes() == LATIN and (ws / "l.md").read_bytes() == MD


def test_a_whole_replacement_is_still_possible_and_undoable(ws: Path) -> None:
    (ws / "latin.txt").write_bytes(LATIN)
    out = run_script(ws, "/open latin.txt\n/write latin.txt <<X\ncafé\nX\n/undo\n")
    assert out.endswith(
        "re: /write latin.txt\nWritten: latin.txt (6 bytes, 1 lines)\nre: /undo\nUndo: reverted latin.txt (2 lines)\n"
    )
    assert (ws / "latin.txt").read_bytes() == LATIN


def test_what_is_not_shown_as_latin1(ws: Path) -> None:
    (ws / "odd16.txt").write_bytes(b"\xff\xfea\x00b")  # a UTF-16 BOM with a cut character: refused, as before
    (ws / "bin.dat").write_bytes(b"\x00\x01caf\xe9")
    (ws / "cut.txt").write_bytes(b"price: 5\xe2\x82")  # UTF-8 cut mid-character: shown byte for byte
    out = run_script(ws, "/open odd16.txt\n/open bin.dat\n/open cut.txt\n")
    assert out == (
        "re: /open odd16.txt\nERROR(ENCODING): odd16.txt is not valid UTF-16-LE (bytes 62 at offset 4); nothing was "
        "changed.\nstringsh keeps files byte-faithful: it reads UTF-8 (with or without BOM) and UTF-16 with a BOM.\n"
        "re: /open bin.dat\nOpened bin.dat\n---\n[binary file] application/octet-stream, 6 bytes (not shown)\n"
        f"re: /open cut.txt\nOpened cut.txt\n---\nprice: 5\u00e2\u0082\n\n{note('cut.txt')}\n"
    )
