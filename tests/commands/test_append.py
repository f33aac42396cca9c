"""/append: exact replies, the added newline, encodings and refusals."""

from __future__ import annotations

from pathlib import Path


def test_appends_and_adds_a_missing_newline_first(ws: Path, dispatcher) -> None:
    (ws / "log.md").write_bytes(b"first")
    assert (
        dispatcher.execute("/append log.md\nsecond\n").text == "re: /append log.md\nAppended to: log.md (now 13 bytes)"
    )
    assert (ws / "log.md").read_bytes() == b"first\nsecond\n"
    assert dispatcher.execute("/append log.md <<EOF\nthird\nEOF").text == (
        "re: /append log.md\nAppended to: log.md (now 19 bytes)"
    )
    assert (
        dispatcher.execute("/append log.md fourth").text
        == "re: /append log.md fourth\nAppended to: log.md (now 26 bytes)"
    )
    assert (ws / "log.md").read_bytes() == b"first\nsecond\nthird\nfourth\n"


def test_crlf_file_gets_crlf(ws: Path, dispatcher) -> None:
    (ws / "win.txt").write_bytes(b"a\r\nb")
    assert (
        dispatcher.execute("/append win.txt\nc\nd\n").text == "re: /append win.txt\nAppended to: win.txt (now 12 bytes)"
    )
    assert (ws / "win.txt").read_bytes() == b"a\r\nb\r\nc\r\nd\r\n"


def test_missing_file_is_not_found(ws: Path, dispatcher) -> None:
    assert (
        dispatcher.execute("/append nope.md\nx\n").text
        == "re: /append nope.md\nERROR(NOT_FOUND): File not found: nope.md\n/ls shows what is there."
    )
    assert not (ws / "nope.md").exists()


def test_latin1_and_binary_are_refused_untouched(ws: Path, dispatcher) -> None:
    (ws / "latin.txt").write_bytes(b"caf\xe9\n")
    (ws / "bin.dat").write_bytes(b"\x00\x01\x02")
    assert dispatcher.execute("/append latin.txt\nx\n").text == (
        "re: /append latin.txt\nERROR(ENCODING): latin.txt is not valid UTF-8 (bytes e9 0a at offset 3); "
        "nothing was changed.\nstringsh keeps files byte-faithful: it reads UTF-8 (with or without BOM) and UTF-16 "
        "with a BOM. /open latin.txt shows it as Latin-1; to append, convert it to UTF-8 first "
        "(!iconv -f LATIN1 -t UTF-8 latin.txt -o latin.txt.utf8)."
    )
    assert dispatcher.execute("/append bin.dat\nx\n").code == "BINARY_FILE"
    assert (ws / "latin.txt").read_bytes() == b"caf\xe9\n" and (ws / "bin.dat").read_bytes() == b"\x00\x01\x02"


def test_usage_errors(ws: Path, dispatcher) -> None:
    (ws / "a.txt").write_text("a\n")
    assert dispatcher.execute("/append").code == "INVALID_PAYLOAD"
    assert dispatcher.execute("/append a.txt").code == "INVALID_PAYLOAD"
    assert dispatcher.execute("/append a.txt <<EOF\nEOF").text == (
        "re: /append a.txt\nERROR(INVALID_PAYLOAD): Nothing to append.\nGive the text in the body."
    )
    assert dispatcher.execute("/append --force a.txt\nx\n").code == "INVALID_PAYLOAD"  # no --force for /append
    assert (ws / "a.txt").read_text() == "a\n"


def test_undo_removes_the_appended_text(ws: Path, dispatcher) -> None:
    (ws / "a.txt").write_bytes(b"a")
    dispatcher.execute("/append a.txt\nb\n")
    assert dispatcher.execute("/undo").text == "re: /undo\nUndo: reverted a.txt (1 line)"
    assert (ws / "a.txt").read_bytes() == b"a"
