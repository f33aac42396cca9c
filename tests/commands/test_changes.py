"""/changes lists the journal's change sets (any topic, client or front end, with the command line
that made each), `/changes ID` shows one as a unified diff; bad input is a coded error with a hint."""

from __future__ import annotations

import re
from pathlib import Path

from stringsh.workspace.engine import Workspace
from stringsh.workspace.models import ChangeSet
from stringsh.workspace.state import state_folder
from tests.commands.test_topics import JsonDaemon
from tests.conftest import run_stringsh, script_replies

TIME = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")


def c(ws: Path, command: str) -> str:
    """One `stringsh -c` reply, its local times replaced by TIME."""
    proc = run_stringsh(["-c", command], ws)
    return TIME.sub("TIME", proc.stdout.decode())


def test_changes_made_by_every_front_end_are_listed_newest_first(ws: Path) -> None:
    assert run_stringsh(["-c", "/write a.md <<EOF\none\ntwo\nEOF"], ws).returncode == 0
    daemon = JsonDaemon(ws)
    try:
        assert daemon.ask("/write --force a.md one", topic="docs").startswith("re: /write")
        assert daemon.ask("/mkdir -p notes/old", topic="docs").startswith("re: /mkdir")
    finally:
        daemon.close()
    workspace = Workspace(ws)  # the library API: no command line
    try:
        workspace.apply(ChangeSet().write("lib.txt", b"x\ny\n"), topic="api")
    finally:
        workspace.close()
    assert c(ws, "/changes") == (
        "re: /changes\n"
        "Changes, newest first (all 4 kept; /changes ID shows one, /revert ID reverts it):\n---\n"
        "4  TIME  api   -                        lib.txt +2 -0\n"
        "3  TIME  docs  /mkdir -p notes/old      notes/ made, notes/old/ made\n"
        "2  TIME  docs  /write --force a.md one  a.md +0 -1\n"
        "1  TIME  main  /write a.md              a.md +2 -0\n"
    )
    assert c(ws, "/changes -n 2") == (
        "re: /changes -n 2\nChanges, newest first (the newest 2 of 4 kept; /changes ID shows one, /revert ID reverts "
        "it):\n---\n4  TIME  api   -                    lib.txt +2 -0\n"
        "3  TIME  docs  /mkdir -p notes/old  notes/ made, notes/old/ made\n"
    )


def test_changes_id_is_a_unified_diff(ws: Path) -> None:
    (ws / "gone.txt").write_text("bye\n")
    replies = script_replies(ws, (
        "/write a.md <<EOF\none\ntwo\nthree\nEOF\n"
        "/replace a.md:L2 <<EOF\nTWO\nEOF\n"
        "/rm gone.txt\n"
        "/changes 1\n/changes 2\n/changes 3\n"
    ))
    assert [TIME.sub("TIME", r) for r in replies[3:]] == [
        "re: /changes 1\nChange 1, TIME, topic main: /write a.md\n---\n"
        "--- /dev/null\n+++ b/a.md\n@@ -0,0 +1,3 @@\n+one\n+two\n+three",
        "re: /changes 2\nChange 2, TIME, topic main: /replace a.md:L2\n---\n"
        "--- a/a.md\n+++ b/a.md\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three",
        "re: /changes 3\nChange 3, TIME, topic main: /rm gone.txt\n---\n"
        "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye",
    ]


def test_secrets_are_masked_and_binary_and_huge_files_summarised(ws: Path) -> None:
    token = "ghp_" + "a1B2" * 9
    (ws / "cfg.txt").write_text(f"token = {token}\nname = x\n")
    (ws / "img.bin").write_bytes(b"\x00\x01\x02")
    (ws / "big.txt").write_bytes(b"l\n" * 600_000)  # 1.2 MB, 600000 lines
    workspace = Workspace(ws)
    try:
        workspace.apply(ChangeSet().write("cfg.txt", f"token = {token}\nname = y\n".encode())
                        .write("img.bin", b"\x00\x09").write("big.txt", b"a longer line of text\n" * 60_000))
    finally:
        workspace.close()
    out = c(ws, "/changes 1")
    assert token not in out
    assert out == (
        "re: /changes 1\nChange 1, TIME, topic main: -\n---\n"
        "--- a/cfg.txt\n+++ b/cfg.txt\n@@ -1,2 +1,2 @@\n token = ***REDACTED***\n-name = x\n+name = y\n"
        "Binary file img.bin changed (3 bytes → 2 bytes)\n"
        "big.txt: too large to show as a diff (1200000 bytes → 1320000 bytes); /open big.txt reads it\n"
    )
    assert c(ws, "/changes").endswith("1  TIME  main  -  cfg.txt +1 -1, img.bin binary, big.txt large\n")


def test_a_change_whose_result_is_gone_says_so(ws: Path) -> None:
    assert run_stringsh(["-c", "/write a.md first"], ws).returncode == 0
    (ws / "a.md").write_text("edited by hand\n")  # the bytes change 1 wrote are kept nowhere now
    assert c(ws, "/changes 1") == (
        "re: /changes 1\nChange 1, TIME, topic main: /write a.md first\n---\n"
        "a.md: its content after this change is no longer known (it changed again since, and no later change kept "
        "it)\n"
    )
    assert c(ws, "/changes").endswith("1  TIME  main  /write a.md first  a.md +? -?\n")


def test_an_empty_journal_and_bad_input(ws: Path) -> None:
    assert c(ws, "/changes") == "re: /changes\nNo changes in the journal yet.\n"
    assert not (state_folder(ws) / "journal.db").exists()  # asking creates no journal (only its audit record)
    assert c(ws, "/changes 3") == (
        "re: /changes 3\nERROR(NOT_FOUND): No change 3 in the journal.\n/changes lists the changes kept.\n"
    )
    run_stringsh(["-c", "/write a.md x"], ws)
    replies = script_replies(ws, "/changes 9\n/changes 0\n/changes abc\n/changes -n\n/changes -n x\n"
                                 "/changes -n 1001\n/changes 1 2\n/changes --all\n/changes\n")
    assert [TIME.sub("TIME", r) for r in replies] == [
        "re: /changes 9\nERROR(NOT_FOUND): No change 9 in the journal.\n/changes lists the changes kept.",
        "re: /changes 0\nERROR(INVALID_PAYLOAD): Not a change id: 0\n"
        "A change id is a whole number above 0, as /changes lists them.",
        "re: /changes abc\nERROR(INVALID_PAYLOAD): Not a change id: abc\n"
        "A change id is a whole number above 0, as /changes lists them.",
        "re: /changes -n\nERROR(INVALID_PAYLOAD): Usage: /changes [-n N] | /changes ID\n"
        "-n takes one number: /changes -n 50",
        "re: /changes -n x\nERROR(INVALID_PAYLOAD): Not a count for -n: x\n"
        "Give a whole number from 1 to 1000: /changes -n 50",
        "re: /changes -n 1001\nERROR(INVALID_PAYLOAD): Not a count for -n: 1001\n"
        "Give a whole number from 1 to 1000: /changes -n 50",
        "re: /changes 1 2\nERROR(INVALID_PAYLOAD): Usage: /changes [-n N] | /changes ID\n"
        "/changes shows one change at a time.",
        "re: /changes --all\nERROR(INVALID_PAYLOAD): Unknown flag for /changes: --all\n"
        "Usage: /changes [-n N] | /changes ID",
        "re: /changes\nChanges, newest first (all 1 kept; /changes ID shows one, /revert ID reverts it):\n---\n"
        "1  TIME  main  /write a.md x  a.md +1 -0",
    ]


def test_the_help_page_is_listed(ws: Path) -> None:
    out = run_stringsh(["-c", "/help"], ws).stdout.decode()
    assert "/changes [-n N] | /changes ID" in out and "/revert ID" in out
    page = run_stringsh(["-c", "/help changes"], ws).stdout.decode()
    assert "keeps the newest 1000 change sets and at most 128 MiB" in page


def test_a_big_change_set_is_cut_after_2000_lines(ws: Path) -> None:
    workspace = Workspace(ws)
    try:
        changeset = ChangeSet()
        for k in range(30):
            changeset.write(f"f{k:02}.txt", "".join(f"{k} {n}\n" for n in range(100)).encode())
        workspace.apply(changeset)
    finally:
        workspace.close()
    lines = c(ws, "/changes 1").splitlines()
    assert lines[3:6] == ["--- /dev/null", "+++ b/f00.txt", "@@ -0,0 +1,100 @@"]
    assert lines[-3:] == ["+19 39", "... (the diff is cut at 2000 lines)", "... and 10 more files"]
    assert len(lines) == 3 + 2000 + 2


def test_appends_keep_the_history_before_them(ws: Path) -> None:
    """`/write f` then `/append f` (twice, one undone): every row keeps its counts and `/changes ID` its diff."""
    from stringsh.dispatcher import Dispatcher

    dispatcher = Dispatcher(ws)
    try:
        for command in ("/write f one", "/append f two", "/append f three", "/undo", "/write f x"):
            assert dispatcher.execute(command).ok, command
        listing = TIME.sub("TIME", dispatcher.execute("/changes").text)
        shown = [dispatcher.execute(f"/changes {n}").text.split("---\n", 1)[1] for n in (1, 2, 4)]
    finally:
        dispatcher.close()
    assert listing.endswith(
        "5  TIME  main  /write f x       f +1 -2\n"
        "4  TIME  main  /undo            f +0 -1 (undoes 3)\n"
        "3  TIME  main  /append f three  f +1 -0 (reverted by 4)\n"
        "2  TIME  main  /append f two    f +1 -0\n"
        "1  TIME  main  /write f one     f +1 -0"
    )
    assert shown == ["--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+one",
                     "--- a/f\n+++ b/f\n@@ -1 +1,2 @@\n one\n+two",
                     "--- a/f\n+++ b/f\n@@ -1,3 +1,2 @@\n one\n two\n-three"]
