"""/append without reading the whole file: O_APPEND, journalled by the old length, undo cuts back."""

from __future__ import annotations

from pathlib import Path

from stringsh.workspace import Workspace
from stringsh.workspace.atomic import sha256
from stringsh.workspace.journalrows import FileRow
from tests.conftest import run_script

LIMITS = "[limits]\nmax_read_bytes = 1000\n"  # a workspace policy may narrow the read limit


def blob_count(ws: Path) -> int:
    workspace = Workspace(ws)
    try:
        return workspace.journal.db.execute("SELECT COUNT(*) FROM blobs").fetchone()[0]
    finally:
        workspace.close()


def test_a_file_past_the_read_limit_is_appended_to_and_the_undo_cuts_it_back(ws: Path) -> None:
    (ws / "stringsh.toml").write_text(LIMITS)
    log = b"".join(b"entry %d\n" % i for i in range(1, 600))  # 5,882 bytes: past the 1,000-byte read limit
    (ws / "app.log").write_bytes(log)
    out = run_script(ws, "/append app.log <<X\nentry 600\nentry 601\nX\n!wc -c < app.log\n/undo\n/undo\n")
    assert out == (
        "re: /append app.log\nAppended to: app.log (now 5902 bytes)\n"
        f"re: !wc -c < app.log\nexit: 0 | cwd: {ws}\n---\n5902\n"
        "re: /undo\nUndo: reverted app.log (599 lines)\n"
        "re: /undo\nERROR(NOT_FOUND): Nothing to undo.\n/changes lists the changes there are.\n"
    )
    assert blob_count(ws) == 0  # the journal kept no copy of the file, for the append nor for its undo
    assert (ws / "app.log").read_bytes() == log


def test_undo_refuses_when_the_file_changed_after_the_append(ws: Path) -> None:
    (ws / "a.txt").write_bytes(b"a\n")
    assert run_script(ws, "/append a.txt b\n!echo someone else >> a.txt\n/undo\n") == (
        "re: /append a.txt b\nAppended to: a.txt (now 4 bytes)\n"
        f"re: !echo someone else >> a.txt\nexit: 0 | cwd: {ws}\n---\n(no output)\n"
        "re: /undo\nERROR(CONFLICT): Refusing to undo: a.txt changed since change 1 wrote it.\n"
        "Nothing was changed; open a.txt to see it, or /undo --skip to leave it and go on to older changes.\n"
    )
    assert (ws / "a.txt").read_bytes() == b"a\nb\nsomeone else\n"


def test_line_endings_split_between_chunks_and_a_missing_final_newline(ws: Path) -> None:
    mib = 1 << 20
    head = b"x" * (mib - 1) + b"\r"  # the file's `\r\n` is cut by the 1 MiB read, then lone `\n`s follow
    (ws / "crlf.txt").write_bytes(head + b"\n" + b"y\r\n" * 3 + b"z\n" * 2 + b"last")
    (ws / "cr.txt").write_bytes(b"x" * (mib - 1) + b"\r" + b"a\rb\r")
    (ws / "bom.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo")
    out = run_script(ws, "/append crlf.txt more\n/append cr.txt more\n/append bom.txt <<X\nthree\nfour\nX\n")
    assert out == (
        "re: /append crlf.txt more\nAppended to: crlf.txt (now 1048602 bytes)\n"
        "re: /append cr.txt more\nAppended to: cr.txt (now 1048585 bytes)\n"
        "re: /append bom.txt\nAppended to: bom.txt (now 26 bytes)\n"
    )
    assert (ws / "crlf.txt").read_bytes() == head + b"\n" + b"y\r\n" * 3 + b"z\n" * 2 + b"last\r\nmore\r\n"
    assert (ws / "cr.txt").read_bytes() == b"x" * (mib - 1) + b"\ra\rb\rmore\r"
    assert (ws / "bom.txt").read_bytes() == b"\xef\xbb\xbfone\r\ntwo\r\nthree\r\nfour\r\n"


def test_bad_bytes_far_into_a_large_file_are_refused_untouched(ws: Path) -> None:
    data = b"ok\n" * 500_000 + b"caf\xe9\n"
    (ws / "big.txt").write_bytes(data)
    (ws / "nul.txt").write_bytes(b"a\x00b")
    (ws / "dir").mkdir()
    out = run_script(ws, "/append big.txt x\n/append nul.txt x\n/append dir x\n/append nope.txt x\n")
    assert out == (
        "re: /append big.txt x\nERROR(ENCODING): big.txt is not valid UTF-8 (bytes e9 0a at offset 1500003); "
        "nothing was changed.\nstringsh keeps files byte-faithful: it reads UTF-8 (with or without BOM) and UTF-16 "
        "with a BOM. /open big.txt shows it as Latin-1; to append, convert it to UTF-8 first "
        "(!iconv -f LATIN1 -t UTF-8 big.txt -o big.txt.utf8).\n"
        "re: /append nul.txt x\nERROR(BINARY_FILE): Binary file: nul.txt (3 bytes)\nOnly its metadata can be shown.\n"
        "re: /append dir x\nERROR(INVALID_TARGET): Is a directory: dir\nUse /ls dir\n"
        "re: /append nope.txt x\nERROR(NOT_FOUND): File not found: nope.txt\n/ls shows what is there.\n"
    )
    assert (ws / "big.txt").read_bytes() == data and (ws / "nul.txt").read_bytes() == b"a\x00b"


def test_utf16_is_still_appended_in_its_encoding(ws: Path) -> None:
    (ws / "w.txt").write_bytes("\ufeffa\r\n".encode("utf-16-le"))
    assert run_script(ws, "/append w.txt b\n") == "re: /append w.txt b\nAppended to: w.txt (now 14 bytes)\n"
    assert (ws / "w.txt").read_bytes() == "\ufeffa\r\nb\r\n".encode("utf-16-le")


def test_an_append_cut_short_by_a_crash_is_cut_back_on_recovery(ws: Path) -> None:
    before = b"line\n"
    (ws / "a.txt").write_bytes(before + b"par")  # a crash left part of the appended bytes
    workspace = Workspace(ws)
    row = FileRow(0, "a.txt", sha256(before), sha256(before + b"partial\n"), 0o644, 0o644, prev_size=len(before))
    workspace.journal.begin("main", "string", "apply", None, [row], {})
    workspace.close()
    workspace = Workspace(ws)
    workspace.recover()
    assert (ws / "a.txt").read_bytes() == before
    state = workspace.journal.db.execute("SELECT state FROM changesets WHERE id=1").fetchone()[0]
    workspace.close()
    assert state == "rolled_back"
