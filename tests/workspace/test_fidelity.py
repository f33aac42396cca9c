"""Fidelity corpus: BOM, UTF-16, CRLF, CR, mixed endings, no final newline, odd characters, mode bits and
symlinks survive edits byte for byte outside the edited region; lossy input is refused with nothing written."""

from __future__ import annotations

import os
import stat

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stringsh.errors import StringError
from stringsh.workspace import Workspace
from stringsh.workspace.textio import count_lines, encode, line_spans, splice

BOMS = {"utf-8": b"\xef\xbb\xbf", "utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff"}

#: name -> (text, encoding, bom, newline style, final newline)
CORPUS: dict[str, tuple[str, str, bool, str, bool]] = {
    "lf": ("one\ntwo MIDDLE\nthree\n", "utf-8", False, "lf", True),
    "crlf": ("one\r\ntwo MIDDLE\r\nthree\r\n", "utf-8", False, "crlf", True),
    "lone-cr": ("one\rtwo MIDDLE\rthree\r", "utf-8", False, "cr", True),
    "mixed": ("one\r\ntwo MIDDLE\nthree\r\nfour\r", "utf-8", False, "mixed", True),
    "no-final-newline": ("one\ntwo MIDDLE\nthree", "utf-8", False, "lf", False),
    "crlf-no-final": ("one\r\ntwo MIDDLE\r\nthree", "utf-8", False, "crlf", False),
    "utf8-bom-crlf": ("één\r\ntwo MIDDLE\r\nthree\r\n", "utf-8", True, "crlf", True),
    "utf16le-bom": ("ünï\r\ntwo MIDDLE\r\n三\r\n", "utf-16-le", True, "crlf", True),
    "utf16be-bom": ("ünï\ntwo MIDDLE\n三\n", "utf-16-be", True, "lf", True),
    "legit-fffd": ("keep \ufffd here\ntwo MIDDLE\nend\n", "utf-8", False, "lf", True),
    "curly-nbsp": ("“quoted” a\u00a0b – c\ntwo MIDDLE\nend\n", "utf-8", False, "lf", True),
    "ff-u2028-nel": ("a\x0cb\u2028c\u0085d\ntwo MIDDLE\nend\n", "utf-8", False, "lf", True),
    "tabs": ("\tone\n\ttwo MIDDLE\n\t\tthree\n", "utf-8", False, "lf", True),
}

REFUSED: dict[str, tuple[bytes, str]] = {
    "latin1": (b"caf\xe9 au lait\ntwo\n", "ENCODING"),
    "utf8-cut-mid-sequence": (b"price: 5\xe2\x82", "ENCODING"),
    "gbk": (b"\xd6\xd0\xce\xc4\n", "ENCODING"),
    "shift-jis": (b"\x82\xa0\x82\xa2\n", "ENCODING"),
    "utf32-bom": (b"\xff\xfe\x00\x00a\x00\x00\x00", "ENCODING"),
    "utf16-odd-length": (b"\xff\xfea\x00b", "ENCODING"),
    "utf16-lone-surrogate": (b"\xff\xfe\x00\xd8a\x00", "ENCODING"),
    "binary": (b"\x7fELF\x02\x01\x00\x00\x00", "BINARY_FILE"),
}


def raw_of(text: str, encoding: str, bom: bool) -> bytes:
    return (BOMS[encoding] if bom else b"") + text.encode(encoding)


@pytest.mark.parametrize("name", list(CORPUS))
def test_read_reports_the_format(engine: Workspace, name: str) -> None:
    text, encoding, bom, style, final = CORPUS[name]
    (engine.root / name).write_bytes(raw_of(text, encoding, bom))
    got = engine.read_text(name)
    assert (got.text, got.encoding, got.bom, got.newline, got.final_newline) == (text, encoding, bom, style, final)
    assert got.line_count == (4 if name == "mixed" else 3)


@pytest.mark.parametrize("name", list(CORPUS))
def test_rewriting_the_same_text_is_byte_identical(engine: Workspace, name: str) -> None:
    text, encoding, bom, _, _ = CORPUS[name]
    raw = raw_of(text, encoding, bom)
    (engine.root / name).write_bytes(raw)
    engine.write_text(name, engine.read_text(name).text)
    assert (engine.root / name).read_bytes() == raw


@pytest.mark.parametrize("name", list(CORPUS))
def test_replacing_a_line_keeps_every_other_byte(engine: Workspace, name: str) -> None:
    text, encoding, bom, _, _ = CORPUS[name]
    raw = raw_of(text, encoding, bom)
    path = engine.root / name
    path.write_bytes(raw)
    os.chmod(path, 0o751)
    start, _, end = line_spans(text)[1]  # the MIDDLE line with its ending
    ending = text[line_spans(text)[1][1] : end]
    new = splice(engine.read_text(name).text, start, end, "x é\ny\n")
    assert new == text[:start] + f"x é{ending}y{ending}" + text[end:]
    engine.write_text(name, new)
    after = path.read_bytes()
    prefix = raw_of(text[:start], encoding, bom)
    suffix = text[end:].encode(encoding)
    assert after.startswith(prefix) and after.endswith(suffix)
    assert after[len(prefix) : len(after) - len(suffix)] == f"x é{ending}y{ending}".encode(encoding)
    assert stat.S_IMODE(path.stat().st_mode) == 0o751
    engine.undo("main")
    assert path.read_bytes() == raw and stat.S_IMODE(path.stat().st_mode) == 0o751


@pytest.mark.parametrize("name", list(CORPUS))
def test_replacing_a_word_inside_a_line(engine: Workspace, name: str) -> None:
    text, encoding, bom, _, _ = CORPUS[name]
    (engine.root / name).write_bytes(raw_of(text, encoding, bom))
    start = text.index("MIDDLE")
    engine.write_text(name, splice(text, start, start + 6, "middle"))
    assert (engine.root / name).read_bytes() == raw_of(text.replace("MIDDLE", "middle"), encoding, bom)


@pytest.mark.parametrize("name", list(CORPUS))
def test_append_keeps_the_file_and_adds_in_its_style(engine: Workspace, name: str) -> None:
    text, encoding, bom, _, final = CORPUS[name]
    raw = raw_of(text, encoding, bom)
    (engine.root / name).write_bytes(raw)
    outcome = engine.append_text(name, "added\nmore\n")
    after = (engine.root / name).read_bytes()
    assert after.startswith(raw)
    ending = {"lone-cr": "\r", "mixed": "\r\n"}.get(name, "\r\n" if "\r\n" in text else "\n")
    expected = ("" if final else ending) + f"added{ending}more{ending}"
    assert after[len(raw) :] == expected.encode(encoding)
    assert outcome.size == len(after)


def test_whole_write_takes_the_dominant_ending_of_a_mixed_file(engine: Workspace) -> None:
    (engine.root / "m.txt").write_bytes(b"a\r\nb\r\nc\n")
    engine.write_text("m.txt", "x\ny\n")
    assert (engine.root / "m.txt").read_bytes() == b"x\r\ny\r\n"


def test_text_that_already_carries_cr_is_written_as_given(engine: Workspace) -> None:
    (engine.root / "m.txt").write_bytes(b"a\nb\n")
    engine.write_text("m.txt", "x\r\ny\n")
    assert (engine.root / "m.txt").read_bytes() == b"x\r\ny\n"


def test_ascii_file_accepts_non_ascii_text(engine: Workspace) -> None:
    (engine.root / "a.txt").write_bytes(b"plain\n")
    engine.append_text("a.txt", "été ✓\n")
    assert (engine.root / "a.txt").read_bytes() == "plain\nété ✓\n".encode()


def test_empty_file(engine: Workspace) -> None:
    (engine.root / "e.txt").write_bytes(b"")
    got = engine.read_text("e.txt")
    assert (got.text, got.newline, got.final_newline, got.line_count) == ("", "none", False, 0)
    engine.append_text("e.txt", "first\n")
    assert (engine.root / "e.txt").read_bytes() == b"first\n"


@pytest.mark.parametrize("name", list(REFUSED))
def test_lossy_or_binary_input_is_refused_and_nothing_written(engine: Workspace, name: str) -> None:
    raw, code = REFUSED[name]
    (engine.root / name).write_bytes(raw)
    for op in (lambda: engine.read_text(name), lambda: engine.append_text(name, "x\n")):
        with pytest.raises(StringError) as caught:
            op()
        assert caught.value.code == code
    assert (engine.root / name).read_bytes() == raw
    assert engine.read_bytes(name) == raw
    assert engine.history() == []


def test_unencodable_text_is_refused(engine: Workspace) -> None:
    (engine.root / "u.txt").write_bytes(b"ok\n")
    for op in (lambda: engine.write_text("u.txt", "bad \ud800\n"), lambda: engine.write_text("new.txt", "\udcff")):
        with pytest.raises(StringError) as caught:
            op()
        assert caught.value.code == "ENCODING"
    assert (engine.root / "u.txt").read_bytes() == b"ok\n" and not (engine.root / "new.txt").exists()


def test_write_through_an_in_root_symlink_keeps_the_link(engine: Workspace) -> None:
    (engine.root / "target.md").write_bytes(b"a\r\nb\r\n")
    os.chmod(engine.root / "target.md", 0o640)
    os.symlink("target.md", engine.root / "link.md")
    assert engine.write_text("link.md", "c\n").rel == "target.md"
    assert (engine.root / "link.md").is_symlink()
    assert (engine.root / "target.md").read_bytes() == b"c\r\n"
    assert stat.S_IMODE((engine.root / "target.md").stat().st_mode) == 0o640
    engine.undo("main")
    assert (engine.root / "target.md").read_bytes() == b"a\r\nb\r\n" and (engine.root / "link.md").is_symlink()


def test_new_files_get_the_umask_mode_and_parents(engine: Workspace) -> None:
    outcome = engine.write_text("deep/er/new.txt", "n\n")
    assert outcome.created and outcome.rel == "deep/er/new.txt"
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE((engine.root / "deep/er/new.txt").stat().st_mode) == 0o666 & ~mask
    with pytest.raises(StringError) as caught:
        engine.write_text("missing/new.txt", "n\n", create_parents=False)
    assert caught.value.code == "NOT_FOUND"


PIECES = st.sampled_from(["a", "b", " ", "é", "三", "\n", "\r\n", "\r", "\t", "\ufffd"])


@settings(max_examples=120, deadline=None)
@given(
    text=st.lists(PIECES, max_size=30).map("".join),
    new=st.lists(st.sampled_from(["x", "\n", "ü"]), max_size=8).map("".join),
    cut=st.tuples(st.integers(0, 60), st.integers(0, 60)),
    encoding=st.sampled_from([("utf-8", False), ("utf-8", True), ("utf-16-le", True), ("utf-16-be", True)]),
)
def test_splice_never_changes_bytes_outside_the_region(text: str, new: str, cut: tuple[int, int],
                                                       encoding: tuple[str, bool]) -> None:
    start, end = sorted(min(c, len(text)) for c in cut)
    if text[start - 1 : start + 1] == "\r\n" or text[end - 1 : end + 1] == "\r\n":
        return  # a region boundary inside a CRLF pair is not a line-model position
    out = splice(text, start, end, new)
    assert out.startswith(text[:start]) and out.endswith(text[end:])
    middle = out[start : len(out) - (len(text) - end)]
    assert middle.replace("\r\n", "\n").replace("\r", "\n") == new
    assert count_lines(middle) == new.count("\n") + (0 if not new or new.endswith("\n") else 1)
    raw_before, raw_after = encode(text, *encoding, "t"), encode(out, *encoding, "t")
    prefix = encode(text[:start], *encoding, "t")
    suffix = encode(text[end:], encoding[0], False, "t")
    assert raw_after.startswith(prefix) and raw_after.endswith(suffix) and raw_before.startswith(prefix)
