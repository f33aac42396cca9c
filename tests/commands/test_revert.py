"""/revert ID reverts one change set (any topic's, any client's) as a new change `/undo` takes
back; CONFLICT names the later change to revert first; unknown, already reverted and pruned ids are coded errors
with a hint, and nothing changes."""

from __future__ import annotations

import re
from pathlib import Path

from stringsh.workspace.engine import Workspace
from tests.commands.test_topics import JsonDaemon
from tests.conftest import run_stringsh, script_replies

TIME = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")


def c(ws: Path, command: str) -> str:
    return TIME.sub("TIME", run_stringsh(["-c", command], ws).stdout.decode())


def test_revert_another_clients_change_then_undo_the_revert(ws: Path) -> None:
    person = {"STRINGSH_CLIENT": "person"}  # another client than this terminal's `run` below
    assert run_stringsh(["-c", "/write a.md <<EOF\none\ntwo\nEOF"], ws, env=person).returncode == 0
    replies = script_replies(ws, "/revert 1\n/undo\n/changes\n/undo\n")
    assert [TIME.sub("TIME", r) for r in replies] == [
        "re: /revert 1\nReverted change 1 as change 2: deleted a.md (was newly created)",
        "re: /undo\nUndo: restored a.md (2 lines)",
        "re: /changes\nChanges, newest first (all 3 kept; /changes ID shows one, /revert ID reverts it):\n---\n"
        "3  TIME  main  /undo        a.md +2 -0 (undoes 2)\n"
        "2  TIME  main  /revert 1    a.md +0 -2 (reverts 1, reverted by 3)\n"
        "1  TIME  main  /write a.md  a.md +2 -0",
        # change 1 is another client's: /undo leaves it
        "re: /undo\nERROR(NOT_FOUND): Nothing to undo.\n/changes lists the changes there are.",
    ]
    assert (ws / "a.md").read_text() == "one\ntwo\n"
    assert c(ws, "/revert 1") == "re: /revert 1\nReverted change 1 as change 4: deleted a.md (was newly created)\n"


def test_a_later_change_must_be_reverted_first(ws: Path) -> None:
    replies = script_replies(ws, (
        "/write a.md v1\n/write --force a.md v2\n/write b.md b\n"
        "/revert 1\n/revert 2\n/revert 1\n"
    ))
    assert replies[3:] == [
        "re: /revert 1\nERROR(CONFLICT): Refusing to revert change 1: change 2 changed a.md after it.\n"
        "Nothing was changed; revert the later one first: /revert 2",
        "re: /revert 2\nReverted change 2 as change 4: reverted a.md (1 line)",
        "re: /revert 1\nReverted change 1 as change 5: deleted a.md (was newly created)",
    ]
    assert not (ws / "a.md").exists() and (ws / "b.md").read_text() == "b\n"


def test_a_file_changed_outside_stringsh_conflicts(ws: Path) -> None:
    run_stringsh(["-c", "/write a.md mine"], ws)
    (ws / "a.md").write_text("by hand\n")
    assert c(ws, "/revert 1") == (
        "re: /revert 1\nERROR(CONFLICT): Refusing to revert change 1: a.md changed since (not by a change in the "
        "journal).\nNothing was changed; open a.md to see its current content.\n"
    )
    assert (ws / "a.md").read_text() == "by hand\n"


def test_bad_ids_are_refused_and_nothing_changes(ws: Path) -> None:
    replies = script_replies(ws, (
        "/write a.md one\n/write --force a.md two\n/undo\n/revert 3\n/revert 2\n/revert 99\n/revert 0\n"
        "/revert\n/revert 1 2\n/revert --all\n/revert 1\n/revert 4\n/revert 1\n"
    ))
    assert replies[3:] == [
        "re: /revert 3\nERROR(INVALID_TARGET): Change 3 cannot be reverted (revert, done).\n"
        "It is /undo's step back from change 2; /revert 2 is not needed, the files already hold their earlier content.",
        "re: /revert 2\nERROR(INVALID_TARGET): Change 2 was already reverted by change 3.\nNothing was changed.",
        "re: /revert 99\nERROR(NOT_FOUND): No change 99 in the journal.\n/changes lists the changes kept.",
        "re: /revert 0\nERROR(INVALID_PAYLOAD): Not a change id: 0\n"
        "A change id is a whole number above 0, as /changes lists them.",
        "re: /revert\nERROR(INVALID_PAYLOAD): Usage: /revert ID\n"
        "Give one change id, as /changes lists them: /revert 12",
        "re: /revert 1 2\nERROR(INVALID_PAYLOAD): Usage: /revert ID\n"
        "Give one change id, as /changes lists them: /revert 12",
        "re: /revert --all\nERROR(INVALID_PAYLOAD): Usage: /revert ID\n"
        "Give one change id, as /changes lists them: /revert 12",
        "re: /revert 1\nReverted change 1 as change 4: deleted a.md (was newly created)",
        "re: /revert 4\nReverted change 4 as change 5: restored a.md (1 line)",  # a revert of a /revert: redo
        "re: /revert 1\nReverted change 1 as change 6: deleted a.md (was newly created)",
    ]
    assert c(ws, "/revert 6") == "re: /revert 6\nReverted change 6 as change 7: restored a.md (1 line)\n"
    assert (ws / "a.md").read_text() == "one\n"


def test_an_already_reverted_change_names_the_revert_to_revert(ws: Path) -> None:
    replies = script_replies(ws, "/write a.md one\n/revert 1\n/revert 1\n")
    assert replies[2] == (
        "re: /revert 1\nERROR(INVALID_TARGET): Change 1 was already reverted by change 2.\n"
        "Nothing was changed; /revert 2 puts it back."
    )


def test_a_revert_of_an_append_cannot_be_undone_as_the_text_is_not_kept(ws: Path) -> None:
    replies = script_replies(ws, "/write a.md one\n/append a.md two\n/revert 2\n/undo\n")
    assert replies[2:] == [
        "re: /revert 2\nReverted change 2 as change 3: reverted a.md (1 line)",
        "re: /undo\nERROR(INVALID_TARGET): Change 3 cut the lines appended by change 2 off a.md, and the journal "
        "keeps no copy of appended text: it cannot be put back.\n"
        "Nothing was changed; append the text again by hand if you need it, or /undo --skip to go on to older "
        "changes.",
    ]
    assert (ws / "a.md").read_text() == "one\n"


def test_revert_over_the_daemon_and_a_folder_change(ws: Path) -> None:
    (ws / "d").mkdir()
    (ws / "d" / "x.txt").write_text("x\n")
    daemon = JsonDaemon(ws)
    try:
        assert daemon.ask("/rm -r d", topic="one") == "re: /rm -r d\nDeleted: d (folder, 1 file, 1 folder)"
        assert daemon.ask("/revert 1", topic="two") == (
            "re: /revert 1\nReverted change 1 as change 2: put back folder d; restored d/x.txt (1 line)"
        )
        assert daemon.ask("/undo", topic="two") == (
            "re: /undo\nUndo: deleted d/x.txt (was newly created); removed folder d"
        )
    finally:
        daemon.close()
    assert not (ws / "d").exists()


def test_a_pruned_change_is_named_as_pruned(ws: Path) -> None:
    (ws / "stringsh.toml").write_text("[journal]\nkeep_changes = 2\n")
    replies = script_replies(ws, "/write a.md 1\n/write b.md 2\n/write c.md 3\n/revert 1\n/changes 1\n")
    hint = ("The journal keeps the newest 2 changes and 128 MiB of previous content ([journal] keep_changes, "
            "keep_bytes in your own policy (<config>/policy.toml or --policy FILE)); /changes lists the changes kept.")
    assert replies[3:] == [
        f"re: /revert 1\nERROR(NOT_FOUND): Change 1 was pruned from the journal.\n{hint}",
        f"re: /changes 1\nERROR(NOT_FOUND): Change 1 was pruned from the journal.\n{hint}",
    ]
    assert (ws / "a.md").exists()
    workspace = Workspace(ws)
    try:
        assert [row.id for row in workspace.history()] == [3, 2]
    finally:
        workspace.close()
