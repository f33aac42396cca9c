"""The `recovery-due` marker (workspace/journalfile.py): a start opens the journal only when a change set may be in
flight, and neither a planted nor a deleted marker changes what is recovered or what a reply says."""

from __future__ import annotations

from pathlib import Path

import pytest

from stringsh.dispatcher import Dispatcher
from stringsh.workspace import Workspace
from stringsh.workspace.changes import sha256
from stringsh.workspace.journalfile import JOURNAL_FILE, MARKED_STAMP, RECOVERY_MARKER, JournalUnavailable
from stringsh.workspace.journalrows import FileRow
from stringsh.workspace.state import state_folder


@pytest.fixture
def used(ws: Path) -> Path:
    """A workspace with a journal whose one change set finished."""
    workspace = Workspace.load(ws)
    try:
        workspace.write_text("a.md", "# a\n")
    finally:
        workspace.close()
    return ws


def left_pending(root: Path) -> int:
    """A change set written `pending` and never finished, as a process killed right after journalling it leaves
    it (its file untouched); returns its id."""
    workspace = Workspace.load(root)
    try:
        old = (root / "a.md").read_bytes()
        with workspace.locked():
            cs = workspace.journal.begin("main", "string", "apply", None,
                                         [FileRow(0, "a.md", sha256(old), sha256(b"# b\n"), None, None)],
                                         {sha256(old): old})
            assert (state_folder(root) / RECOVERY_MARKER).exists()  # before anything of the change is written
        assert (state_folder(root) / RECOVERY_MARKER).exists()  # still pending when the lock went: it stays
    finally:
        workspace.close()
    return cs


def pending(root: Path) -> list[int]:
    workspace = Workspace(root)  # no start-up recovery
    try:
        return workspace.journal.pending()
    finally:
        workspace.close()


def due(root: Path) -> bool:
    workspace = Workspace(root)
    try:
        return workspace.state.recovery_due()
    finally:
        workspace.close()


def listing(root: Path) -> str:
    dispatcher = Dispatcher(root)
    try:
        return dispatcher.execute("/ls").text
    finally:
        dispatcher.close()


def test_a_finished_change_leaves_no_marker_and_a_stamp(used: Path) -> None:
    folder = state_folder(used)
    assert (folder / JOURNAL_FILE).is_file() and (folder / MARKED_STAMP).is_file()
    assert not (folder / RECOVERY_MARKER).exists()
    assert not due(used)


def test_every_change_of_a_long_lived_process_takes_its_marker_away(used: Path) -> None:
    workspace = Workspace.load(used)
    try:
        for n in range(3):
            workspace.write_text("a.md", f"# a{n}\n")
            assert not (state_folder(used) / RECOVERY_MARKER).exists()
    finally:
        workspace.close()


def test_a_planted_marker_costs_one_opening_and_changes_no_reply(used: Path) -> None:
    lazy = listing(used)
    (state_folder(used) / RECOVERY_MARKER).write_bytes(b"")
    assert due(used)
    assert listing(used) == lazy  # the eager start (journal opened, nothing to recover) replies the same bytes
    assert not (state_folder(used) / RECOVERY_MARKER).exists()  # removed once the journal said nothing is pending


def test_a_kill_mid_change_is_recovered_by_the_next_start(used: Path) -> None:
    left_pending(used)
    assert listing(used).startswith("re: /ls\n")
    assert pending(used) == []
    assert (used / "a.md").read_text() == "# a\n"
    assert not (state_folder(used) / RECOVERY_MARKER).exists()


def test_a_deleted_marker_delays_recovery_to_the_next_change_never_loses_it(used: Path) -> None:
    cs = left_pending(used)
    (state_folder(used) / RECOVERY_MARKER).unlink()
    workspace = Workspace.load(used)
    try:
        workspace.write_text("b.md", "# b\n")  # every change recovers whatever is pending first
        assert workspace.journal.pending() == []
        row = workspace.journal.get(cs)
        assert row is not None and row.state == "rolled_back"
    finally:
        workspace.close()
    assert (used / "a.md").read_text() == "# a\n"


def test_a_journal_an_older_version_left_is_opened_at_start(used: Path) -> None:
    left_pending(used)
    for name in (RECOVERY_MARKER, MARKED_STAMP):  # as a version before the marker leaves its journal
        (state_folder(used) / name).unlink()
    assert due(used)
    Workspace.load(used).close()
    assert pending(used) == []
    assert (state_folder(used) / MARKED_STAMP).is_file()


def test_a_journal_that_cannot_be_opened_is_one_coded_error(used: Path) -> None:
    (state_folder(used) / JOURNAL_FILE).write_bytes(b"garbage" * 1000)
    workspace = Workspace(used)
    try:
        with pytest.raises(JournalUnavailable) as caught:
            workspace.state.open_journal()
    finally:
        workspace.close()
    assert caught.value.code == "INTERNAL_ERROR"
    assert caught.value.message == f"The change journal {state_folder(used) / JOURNAL_FILE} cannot be used: file is " \
        "not a database."
