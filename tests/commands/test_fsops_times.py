"""/mv and /cp keep a file's modification time and mode (as `mv` and `cp -p`), and /undo of a /mv, /cp or /rm
gives back the times of the files it puts back, through the real program."""

from __future__ import annotations

import os
from pathlib import Path

from tests.conftest import script_replies

OLD = 1_600_000_000_000_000_000  # 2020-09-13, in ns
OLDER = 1_500_000_000_000_000_000


def times(path: Path) -> tuple[int, int]:
    """(mtime_ns, permission bits). The access time is set too, but any later read may move it on."""
    st = path.lstat()
    return st.st_mtime_ns, st.st_mode & 0o7777


def aged(path: Path, text: str, mode: int = 0o640, when: int = OLD) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.chmod(path, mode)
    os.utime(path, ns=(when, when))
    return path


def test_mv_keeps_times_and_undo_gives_them_back(ws: Path) -> None:
    aged(ws / "a.md", "alpha\n", 0o750)
    aged(ws / "old.md", "old\n", 0o600, OLDER)
    assert script_replies(ws, "/mv a.md b.md\n/undo\n/mv --force a.md old.md\n/undo\n") == [
        "re: /mv a.md b.md\nMoved: a.md → b.md",
        "re: /undo\nUndo: restored a.md (1 line); deleted b.md (was newly created)",
        "re: /mv --force a.md old.md\nMoved: a.md → old.md (replaced the old old.md)",
        "re: /undo\nUndo: restored a.md (1 line); reverted old.md (1 line)",
    ]
    assert times(ws / "a.md") == (OLD, 0o750)
    assert times(ws / "old.md") == (OLDER, 0o600)
    assert (ws / "old.md").read_text() == "old\n"
    assert script_replies(ws, "/mv a.md b.md\n")[0] == "re: /mv a.md b.md\nMoved: a.md → b.md"
    assert times(ws / "b.md") == (OLD, 0o750)


def test_a_moved_folder_keeps_its_files_times(ws: Path) -> None:
    aged(ws / "src" / "one.py", "1\n", 0o644, OLD)
    aged(ws / "src" / "deep" / "two.py", "2\n", 0o755, OLDER)
    assert script_replies(ws, "/mv src lib\n")[0] == "re: /mv src lib\nMoved: src → lib (folder, 2 files)"
    assert times(ws / "lib" / "one.py") == (OLD, 0o644)
    assert times(ws / "lib" / "deep" / "two.py") == (OLDER, 0o755)
    assert script_replies(ws, "/mv lib src\n/undo\n")[1:] == [
        "re: /undo\nUndo: put back folder lib; put back folder lib/deep; restored lib/deep/two.py (1 line); "
        "deleted src/deep/two.py (was newly created); restored lib/one.py (1 line); deleted src/one.py (was newly "
        "created); removed folder src/deep; removed folder src",
    ]


def test_cp_keeps_times_like_cp_p_and_undo_restores_the_replaced_file(ws: Path) -> None:
    aged(ws / "a.md", "alpha\n", 0o640)
    aged(ws / "b.md", "bee\n", 0o600, OLDER)
    assert script_replies(ws, "/cp a.md c.md\n/cp --force a.md b.md\n/undo\n") == [
        "re: /cp a.md c.md\nCopied: a.md → c.md (6 bytes)",
        "re: /cp --force a.md b.md\nCopied: a.md → b.md (6 bytes, replaced the old b.md)",
        "re: /undo\nUndo: reverted b.md (1 line)",
    ]
    assert times(ws / "c.md") == (OLD, 0o640)
    assert times(ws / "b.md") == (OLDER, 0o600)
    assert (ws / "b.md").read_text() == "bee\n"


def test_undo_of_rm_gives_back_the_times(ws: Path) -> None:
    aged(ws / "gone" / "x.txt", "x\n", 0o604, OLD)
    aged(ws / "y.txt", "y\n", 0o600, OLDER)
    replies = script_replies(ws, "/rm -r gone\n/rm y.txt\n/undo\n/undo\n")
    assert replies[2:] == ["re: /undo\nUndo: restored y.txt (1 line)",
                           "re: /undo\nUndo: put back folder gone; restored gone/x.txt (1 line)"]
    assert times(ws / "gone" / "x.txt") == (OLD, 0o604)
    assert times(ws / "y.txt") == (OLDER, 0o600)


def test_undo_of_an_edit_leaves_the_time_new(ws: Path) -> None:
    """Only a move, copy or delete gives times back: an edit's undo is a new change to the bytes, so a make-like
    tool that compares times sees it and rebuilds."""
    aged(ws / "a.md", "alpha\n")
    replies = script_replies(ws, "/write --force a.md beta\n/undo\n")
    assert replies[-1] == "re: /undo\nUndo: reverted a.md (1 line)"
    assert (ws / "a.md").read_text() == "alpha\n"
    assert times(ws / "a.md")[0] > OLD
