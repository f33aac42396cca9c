"""Engine state a workspace ships is never believed, never written through, and
undo only touches the file it wrote.

Each attack is run the way the issue reproduced it: a workspace folder with something planted, then the real
program (`stringsh -c`) or the Dispatcher. "Outside" is a sibling folder that must come out unchanged.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from stringsh.dispatcher import Dispatcher
from stringsh.errors import StringError
from stringsh.workspace import Workspace
from stringsh.workspace.atomic import sha256
from stringsh.workspace.journalschema import SCHEMA
from stringsh.workspace.state import JOURNAL_FILE, state_folder
from tests.conftest import run_stringsh
from tests.workspace.conftest import snapshot

HOOK = b"#!/bin/sh\ntouch \"$HOME/pwned\"\n"
BIG = "".join(f"## Section {i}\n\ntext {i}\n\n" for i in range(2000))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A cloned repository (with a `.git/hooks` folder) next to an `outside` folder holding a file."""
    root = tmp_path / "repo"
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / "README.md").write_text("# readme\n")
    (root / "big.md").write_text(BIG)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("outside\n")
    return root


def outside_of(repo: Path) -> Path:
    return repo.parent / "outside"


def plant_journal(path: Path) -> None:
    """What finding 1 committed: a pending change set that "rolls back" to a git hook (mode 0755), plus a row
    whose new bytes are not on disk, which forces the rollback."""
    db = sqlite3.connect(path)
    db.executescript(SCHEMA)
    db.execute("INSERT INTO changesets VALUES (1, 0, 'main', 'string', 'apply', NULL, 'pending', NULL)")
    db.execute("INSERT INTO files VALUES (1, 0, '.git/hooks/post-commit', ?, NULL, 493, NULL)", (sha256(HOOK),))
    db.execute("INSERT INTO files VALUES (1, 1, 'README.md', NULL, ?, NULL, 420)", ("0" * 64,))
    db.execute("INSERT INTO changesets VALUES (2, 0, 'main', 'string', 'apply', NULL, 'done', NULL)")
    db.execute("INSERT INTO files VALUES (2, 0, 'README.md', ?, ?, 420, 420)", (sha256(b"x"), sha256(b"# readme\n")))
    db.execute("INSERT INTO blobs VALUES (?, ?)", (sha256(HOOK), HOOK))
    db.execute("INSERT INTO blobs VALUES (?, ?)", (sha256(b"x"), b"x"))
    db.commit()
    db.close()


def stringsh(repo: Path, script: str):
    """The real program on a script; never a traceback, whatever was planted."""
    proc = run_stringsh(["-c", script], repo, timeout=60)
    assert b"Traceback" not in proc.stderr + proc.stdout, proc.stderr.decode()
    return proc


def stringsh_run(repo: Path, script: str):
    """The real program running a whole script in one process (`run -`)."""
    proc = run_stringsh(["run", "-"], repo, stdin=script, timeout=60)
    assert b"Traceback" not in proc.stderr + proc.stdout, proc.stderr.decode()
    return proc


# -- finding 1 ------------------------------------------------------------------------------------------------


def test_a_committed_journal_is_never_replayed(repo: Path) -> None:
    (repo / ".stringsh").mkdir()
    plant_journal(repo / ".stringsh" / JOURNAL_FILE)
    planted = (repo / ".stringsh" / JOURNAL_FILE).read_bytes()
    proc = stringsh(repo, "/ls")
    assert proc.returncode == 0 and b"README.md" in proc.stdout
    assert not (repo / ".git" / "hooks" / "post-commit").exists()
    assert (repo / "README.md").read_text() == "# readme\n"
    assert stringsh(repo, "/undo").stdout.decode().endswith(
        "ERROR(NOT_FOUND): Nothing to undo.\n"
        "/changes lists the changes there are.\n"
    )
    assert (repo / "README.md").read_text() == "# readme\n"  # the planted "done" change is not undone either
    assert (repo / ".stringsh" / JOURNAL_FILE).read_bytes() == planted  # never even opened for writing
    assert not (repo / ".git" / "hooks" / "post-commit").exists()


def test_the_users_own_journal_lives_outside_the_workspace(repo: Path) -> None:
    dispatcher = Dispatcher(repo)
    assert dispatcher.execute("/write notes.md\nmine\n").ok
    state = dispatcher.workspace.state
    assert state.path == state_folder(repo) and (state.path / JOURNAL_FILE).is_file()
    assert not state.path.is_relative_to(repo)
    assert state.path.stat().st_mode & 0o777 == 0o700
    assert (state.path / "workspace").read_text() == f"{repo.resolve()}\n"
    # the workspace keeps only the tree's id, which the state folder's identity record names (identity.py)
    assert sorted(p.name for p in (repo / ".stringsh").iterdir()) == [".gitignore", "workspace-id"]
    assert f"id={(repo / '.stringsh' / 'workspace-id').read_text()}" in (state.path / "identity").read_text()
    dispatcher.close()


# -- finding 9 ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["audit.log", "lock", "journal.db", ".gitignore"])
def test_a_planted_state_file_link_writes_nothing_outside(repo: Path, name: str) -> None:
    outside = outside_of(repo)
    (repo / ".stringsh").mkdir()
    os.symlink(outside / f"made-{name}", repo / ".stringsh" / name)  # dangling: following it would create it
    os.symlink(outside / "keep.txt", repo / ".stringsh" / f"{name}-existing")
    before = snapshot(outside, outside / "none")
    assert stringsh(repo, "/ls").returncode == 0
    proc = stringsh_run(repo, "/write new.md <<EOF\nhello\nEOF\n/undo\n")  # one process: undo is per client
    assert proc.returncode == 0, proc.stdout
    assert proc.stdout.decode().endswith("Undo: deleted new.md (was newly created)\n")
    assert snapshot(outside, outside / "none") == before
    assert os.readlink(repo / ".stringsh" / name) == str(outside / f"made-{name}")


def test_a_planted_spool_link_keeps_shell_output_inside(repo: Path) -> None:
    outside = outside_of(repo)
    (repo / ".stringsh").mkdir()
    os.symlink(outside, repo / ".stringsh" / "spool")
    before = snapshot(outside, outside / "none")
    out = stringsh(repo, "/exec seq 1 30000").stdout.decode()
    assert "lines cut; whole output (168894 bytes, 30000 lines) not kept: spool is a symbolic link ...]" in out
    out = stringsh(repo, "!seq 1 30000").stdout.decode()
    assert "not kept: spool is a symbolic link" in out
    assert snapshot(outside, outside / "none") == before


def test_a_planted_state_folder_link_writes_nothing_outside(repo: Path) -> None:
    outside = outside_of(repo)
    os.symlink("../outside", repo / ".stringsh")
    before = snapshot(outside, outside / "none")
    assert stringsh(repo, "/ls").returncode == 0
    assert b"## Section 1999" in stringsh(repo, "/open big.md#section-1999").stdout  # the index cache stays away
    assert "not kept: .stringsh is a symbolic link" in stringsh(repo, "/exec seq 1 30000").stdout.decode()
    proc = stringsh(repo, "/write new.md\nhello\n")
    assert "ERROR(NOT_PERMITTED): .stringsh/ is not a folder stringsh can use." in proc.stdout.decode()
    assert not (repo / "new.md").exists()
    assert snapshot(outside, outside / "none") == before
    assert os.readlink(repo / ".stringsh") == "../outside"


@pytest.mark.parametrize("planted", [".stringsh/cache", ".stringsh/cache/index"])
def test_a_planted_cache_link_writes_nothing_outside(repo: Path, planted: str) -> None:
    outside = outside_of(repo)
    (repo / planted).parent.mkdir(parents=True)
    os.symlink(outside, repo / planted)
    before = snapshot(outside, outside / "none")
    assert b"## Section 1999" in stringsh(repo, "/open big.md#section-1999").stdout
    assert snapshot(outside, outside / "none") == before


@pytest.mark.parametrize("journal", ["fifo", "corrupt"])
def test_a_planted_fifo_or_corrupt_state_file_is_ignored(repo: Path, journal: str) -> None:
    (repo / ".stringsh").mkdir()
    for name in ("audit.log", "lock"):
        os.mkfifo(repo / ".stringsh" / name)
    if journal == "fifo":
        os.mkfifo(repo / ".stringsh" / JOURNAL_FILE)
    else:
        (repo / ".stringsh" / JOURNAL_FILE).write_bytes(b"not a database at all" * 100)
    assert stringsh(repo, "/ls").returncode == 0
    proc = stringsh_run(repo, "/write a.md <<EOF\nx\nEOF\n/undo\n")  # one process: undo is per client
    assert proc.returncode == 0, proc.stdout
    assert proc.stdout.decode().endswith("Undo: deleted a.md (was newly created)\n")


def test_the_users_journal_as_a_fifo_is_a_coded_error_not_a_hang(repo: Path) -> None:
    folder = state_folder(repo)
    folder.mkdir(parents=True, mode=0o700)
    os.mkfifo(folder / JOURNAL_FILE)
    proc = stringsh(repo, "/write a.md\nx\n")
    assert proc.returncode != 0
    assert f"ERROR(INTERNAL_ERROR): The change journal {folder / JOURNAL_FILE} cannot be used: it is not a regular " \
        "file.\nMove it aside (undo history and crash recovery start afresh) and run the command again." in (
            proc.stdout + proc.stderr).decode()
    assert not (repo / "a.md").exists()


def test_a_corrupt_journal_is_a_coded_error(repo: Path) -> None:
    folder = state_folder(repo)
    folder.mkdir(parents=True, mode=0o700)
    (folder / JOURNAL_FILE).write_bytes(b"garbage" * 1000)
    proc = stringsh(repo, "/write a.md\nx\n")
    text = (proc.stdout + proc.stderr).decode()
    assert f"ERROR(INTERNAL_ERROR): The change journal {folder / JOURNAL_FILE} cannot be used: file is not a " \
        "database.\nMove it aside" in text
    assert not (repo / "a.md").exists()
    (folder / JOURNAL_FILE).unlink()
    assert stringsh(repo, "/write a.md\nx\n").returncode == 0  # moved aside: a fresh journal


def test_a_missing_journal_blob_is_a_coded_error(repo: Path) -> None:
    dispatcher = Dispatcher(repo)
    assert dispatcher.execute("/write --force README.md\nchanged\n").ok
    dispatcher.workspace.journal.db.execute("DELETE FROM blobs")
    assert dispatcher.execute("/undo").text == (
        "re: /undo\nERROR(NOT_FOUND): Cannot undo change 1: the journal no longer holds the previous bytes of "
        "README.md.\nNothing was changed; restore README.md by hand (from version control) if you need its old "
        "content, or /undo --skip to go on to older changes."
    )
    assert (repo / "README.md").read_text() == "changed\n"
    dispatcher.close()


def test_a_pending_change_with_a_missing_blob_is_a_coded_error(repo: Path) -> None:
    workspace = Workspace(repo)
    journal = workspace.journal
    journal.db.executescript(
        "INSERT INTO changesets VALUES (1, 0, 'main', 'string', 'apply', NULL, 'pending', NULL);"
        f"INSERT INTO files VALUES (1, 0, 'README.md', '{'1' * 64}', '{sha256(b'# readme' + bytes([10]))}', 420, 420);"
        f"INSERT INTO files VALUES (1, 1, 'other.md', NULL, '{'0' * 64}', NULL, 420);"
    )
    workspace.close()
    proc = stringsh(repo, "/write a.md\nx\n")
    assert (
        "ERROR(INTERNAL_ERROR): Cannot roll back interrupted change 1: the journal lost the previous bytes of "
        "README.md.\nCheck README.md by hand, then move the change journal aside: "
        f"{state_folder(repo) / JOURNAL_FILE}"
    ) in (proc.stdout + proc.stderr).decode()
    assert (repo / "README.md").read_text() == "# readme\n"


# -- finding 11 -----------------------------------------------------------------------------------------------


def test_undo_of_a_created_file_never_deletes_a_swapped_links_target(repo: Path) -> None:
    dispatcher = Dispatcher(repo)
    assert dispatcher.execute("/write new.txt\nhello").ok
    wrote = (repo / "new.txt").read_bytes()
    (repo / "keep.txt").write_bytes(wrote)  # same bytes, so a content check alone is fooled
    (repo / "new.txt").unlink()
    os.symlink("keep.txt", repo / "new.txt")
    assert dispatcher.execute("/undo").text == (
        "re: /undo\nERROR(CONFLICT): Refusing to undo: new.txt is now a symbolic link (to keep.txt), not the file "
        "change 1 wrote.\nNothing was changed; remove the link or restore new.txt by hand, then undo again, or "
        "/undo --skip to go on to older changes."
    )
    assert (repo / "keep.txt").read_bytes() == wrote
    assert os.readlink(repo / "new.txt") == "keep.txt"
    dispatcher.close()


def test_undo_of_an_overwrite_never_rewrites_a_swapped_links_target(repo: Path) -> None:
    (repo / "a.txt").write_text("v1\n")
    dispatcher = Dispatcher(repo)
    assert dispatcher.execute("/write --force a.txt\nv2\n").ok
    (repo / "keep.txt").write_text("v2\n")
    (repo / "a.txt").unlink()
    os.symlink("keep.txt", repo / "a.txt")
    reply = dispatcher.execute("/undo")
    assert reply.code == "CONFLICT" and "a.txt is now a symbolic link (to keep.txt)" in reply.text
    assert (repo / "keep.txt").read_text() == "v2\n"
    assert os.readlink(repo / "a.txt") == "keep.txt"
    # the link removed and the file put back as written: undo works again
    (repo / "a.txt").unlink()
    (repo / "a.txt").write_text("v2\n")
    assert dispatcher.execute("/undo").text == "re: /undo\nUndo: reverted a.txt (1 line)"
    assert (repo / "a.txt").read_text() == "v1\n" and (repo / "keep.txt").read_text() == "v2\n"
    dispatcher.close()


def test_revert_by_id_and_a_folder_swapped_for_a_link_are_refused_too(repo: Path) -> None:
    workspace = Workspace(repo)
    change = workspace.write_text("d/f.txt", "mine\n").change_id
    os.rename(repo / "d", repo / "d_old")
    os.symlink("d_old", repo / "d")  # the same file, now reached through a link: not what the change wrote
    with pytest.raises(StringError) as caught:
        workspace.revert(change)
    assert caught.value.code == "CONFLICT"
    assert (repo / "d_old" / "f.txt").read_text() == "mine\n"
    workspace.close()


def test_recovery_never_writes_through_a_swapped_link(repo: Path) -> None:
    workspace = Workspace(repo)
    (repo / "keep.txt").write_bytes(b"new\n")
    journal = workspace.journal
    journal.begin("main", "string", "apply", None, [
        journal_row(0, "f.txt", None, b"new\n"), journal_row(1, "g.txt", None, b"never written\n"),
    ], {})
    os.symlink("keep.txt", repo / "f.txt")  # after the crash, f.txt was swapped for a link to the same bytes
    workspace.recover()
    assert (repo / "keep.txt").read_bytes() == b"new\n"
    assert os.readlink(repo / "f.txt") == "keep.txt"
    workspace.close()


def journal_row(idx: int, path: str, prev: bytes | None, new: bytes | None):
    from stringsh.workspace.journalrows import FileRow

    return FileRow(idx, path, None if prev is None else sha256(prev), None if new is None else sha256(new),
                   None if prev is None else 0o644, None if new is None else 0o644)
