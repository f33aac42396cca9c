"""A workspace is its tree, not its path: a folder re-created at the same path (a copy, a fresh clone) starts a
fresh journal, and the old state folder is kept aside, never replayed; the same folder keeps its history across
restarts and moves. Real processes, real `cp -a`, real git."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from stringsh.workspace.state import JOURNAL_FILE, state_folder
from tests.commands.gitrepo import ENV, git, make_repo
from tests.conftest import run_stringsh

NO_CHANGES = "re: /changes\nNo changes in the journal yet.\n"
REVERT_NOT_FOUND = "re: /revert 1\nERROR(NOT_FOUND): No change 1 in the journal.\n/changes lists the changes kept.\n"
MARK = Path(".stringsh") / "workspace-id"


def ask(ws: Path, command: str) -> tuple[str, str]:
    """One `stringsh -c` run in `ws`: its stdout and stderr."""
    done = run_stringsh(["-c", command], ws)
    return done.stdout.decode(), done.stderr.decode()


def tree(root: Path) -> dict[str, bytes]:
    """Every file under `root` but stringsh's own `.stringsh/`, with its bytes."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".stringsh" not in p.relative_to(root).parts}


def asides(ws: Path) -> list[Path]:
    """The state folders kept aside for the workspace's path."""
    folder = state_folder(ws)
    return sorted(folder.parent.glob(f"{folder.name}.replaced-*"))


def notice(ws: Path, reason: str) -> str:
    [aside] = asides(ws)
    return (f"stringsh: this folder is not the workspace the journal knew ({reason}); its history was kept aside "
            f"in {aside}\n")


def make_changes(ws: Path) -> None:
    """A new file and an edit: reverting them would delete `made.txt` and put `a.txt` back."""
    assert ask(ws, "/write made.txt from the old tree") == (
        "re: /write made.txt from the old tree\nCreated: made.txt (18 bytes, 1 line)\n", "")
    assert ask(ws, "/write --force a.txt changed") == (
        "re: /write --force a.txt changed\nWritten: a.txt (8 bytes, 1 line)\n", "")
    out, _ = ask(ws, "/changes")
    assert "/write made.txt" in out and "/write --force a.txt changed" in out


def expect_fresh(ws: Path, reason: str, canary: Path) -> None:
    """The re-created tree: no history, the old state kept aside (with its change sets), nothing changed."""
    before = tree(ws)
    out, err = ask(ws, "/changes")
    assert (out, err) == (NO_CHANGES, notice(ws, reason))
    assert ask(ws, "/revert 1") == (REVERT_NOT_FOUND, "")  # said once: the next start is quiet
    assert ask(ws, "/changes") == (NO_CHANGES, "")
    assert tree(ws) == before
    [aside] = asides(ws)
    assert (aside / JOURNAL_FILE).is_file() and (aside / "audit.log").is_file()
    assert (aside / "workspace").read_text() == f"{ws.resolve()}\n"
    assert canary.read_text() == "outside\n"


@pytest.fixture
def canary(tmp_path: Path) -> Path:
    path = tmp_path / "canary.txt"
    path.write_text("outside\n")
    return path


@pytest.fixture
def base(tmp_path: Path) -> Path:
    """A tree to copy; it holds a `made.txt` with the bytes the old tree's change wrote, so a revert replayed on
    the new tree would delete it."""
    root = tmp_path / "base"
    root.mkdir()
    (root / "a.txt").write_text("hello\n")
    (root / "made.txt").write_text("from the old tree\n")
    return root


def test_a_tree_copied_to_the_path_of_a_deleted_one_starts_a_fresh_journal(ws: Path, base: Path,
                                                                            canary: Path) -> None:
    ws.rmdir()
    subprocess.run(["cp", "-a", str(base), str(ws)], check=True)
    (ws / "made.txt").unlink()  # the old tree: the base before `made.txt`
    make_changes(ws)
    shutil.rmtree(ws)
    subprocess.run(["cp", "-a", str(base), str(ws)], check=True)
    expect_fresh(ws, recreated(ws), canary)
    assert (ws / "made.txt").read_text() == "from the old tree\n"


def test_a_copy_of_the_very_tree_restored_at_its_path_starts_a_fresh_journal(ws: Path, tmp_path: Path,
                                                                           canary: Path) -> None:
    """`cp -a ws keep; rm -rf ws; cp -a keep ws`: the copy carries the tree's own id; the root is another inode
    (or the old number with a new generation, where the file system reports one)."""
    (ws / "a.txt").write_text("hello\n")
    make_changes(ws)
    keep = tmp_path / "keep"
    subprocess.run(["cp", "-a", str(ws), str(keep)], check=True)
    shutil.rmtree(ws)
    subprocess.run(["cp", "-a", str(keep), str(ws)], check=True)
    assert (ws / MARK).read_text() == (keep / MARK).read_text()  # the id alone does not tell them apart
    expect_fresh(ws, f"{ws.resolve()} was re-created", canary)


@pytest.mark.needs("git")
def test_a_fresh_clone_at_the_path_of_a_deleted_one_starts_a_fresh_journal(tmp_path: Path, canary: Path) -> None:
    origin = tmp_path / "origin"
    origin.mkdir()
    make_repo(origin)
    ws = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(origin), str(ws))
    make_changes(ws)
    assert git(ws, "status", "--porcelain") == " M a.txt\n?? made.txt\n"  # .stringsh/ ignores itself: not cloned
    shutil.rmtree(ws)
    git(tmp_path, "clone", "-q", str(origin), str(ws))
    (ws / "made.txt").write_text("from the old tree\n")
    expect_fresh(ws, recreated(ws), canary)
    assert subprocess.run(["git", "diff", "--quiet"], cwd=ws, env=ENV, check=False).returncode == 0


def test_the_same_folder_keeps_its_history_across_restarts(ws: Path) -> None:
    (ws / "a.txt").write_text("hello\n")
    make_changes(ws)
    out, err = ask(ws, "/changes")
    assert err == "" and "/write made.txt" in out
    assert ask(ws, "/revert 1") == (
        "re: /revert 1\nReverted change 1 as change 3: deleted made.txt (was newly created)\n", "")
    assert not (ws / "made.txt").exists() and asides(ws) == []


def test_a_folder_moved_away_and_back_keeps_its_history(ws: Path, tmp_path: Path) -> None:
    """Same inode, same id: it is the same tree, even when stringsh was used at the other path meanwhile."""
    (ws / "a.txt").write_text("hello\n")
    make_changes(ws)
    away = tmp_path / "away"
    ws.rename(away)
    assert ask(away, "/changes") == (NO_CHANGES, "")  # another path: its own (new) journal
    away.rename(ws)
    out, err = ask(ws, "/changes")
    assert err == "" and "/write made.txt" in out and "/write --force a.txt changed" in out
    assert asides(ws) == [] and asides(away) == []


def test_removing_the_workspaces_stringsh_folder_starts_a_fresh_journal(ws: Path, canary: Path) -> None:
    (ws / "a.txt").write_text("hello\n")
    make_changes(ws)
    shutil.rmtree(ws / ".stringsh")
    reason = f"{ws.resolve()}/.stringsh/workspace-id is missing: the folder was re-created or its .stringsh/ removed"
    expect_fresh(ws, reason, canary)
    assert (ws / "made.txt").read_text() == "from the old tree\n"  # not reverted, not deleted


def test_an_id_of_another_tree_starts_a_fresh_journal(ws: Path, canary: Path) -> None:
    (ws / "a.txt").write_text("hello\n")
    make_changes(ws)
    (ws / MARK).write_text("0123456789abcdef0123456789abcdef\n")
    expect_fresh(ws, f"{ws.resolve()}/.stringsh/workspace-id names another workspace: the folder was re-created "
                     f"from a copy", canary)


def test_a_planted_id_link_is_never_followed(ws: Path, canary: Path) -> None:
    """A repository that ships `.stringsh/workspace-id -> ../../canary.txt`: never read, never written through."""
    (ws / ".stringsh").mkdir()
    (ws / MARK).symlink_to(canary)
    assert ask(ws, "/write new.txt hi") == ("re: /write new.txt hi\nCreated: new.txt (3 bytes, 1 line)\n", "")
    assert not (ws / MARK).is_symlink() and len((ws / MARK).read_text()) == 33
    assert canary.read_text() == "outside\n"
    assert f"id={(ws / MARK).read_text()}" in (state_folder(ws) / "identity").read_text()
    out, err = ask(ws, "/changes")
    assert err == "" and "/write new.txt" in out


def test_a_state_folder_from_before_identities_is_adopted(ws: Path) -> None:
    (ws / "a.txt").write_text("hello\n")
    make_changes(ws)
    (state_folder(ws) / "identity").unlink()
    (ws / MARK).unlink()
    out, err = ask(ws, "/changes")
    assert err == "" and "/write made.txt" in out
    assert f"id={(ws / MARK).read_text()}" in (state_folder(ws) / "identity").read_text()
    assert asides(ws) == []


def recreated(ws: Path) -> str:
    """Why a re-created tree without stringsh's id is not the old one: its root is another inode (or the old
    number with a new generation), else (the file system handed the old inode back and reports no generation)
    the id is missing. Read from the state folder's record before anything runs on the new tree."""
    text = (state_folder(ws) / "identity").read_text()
    record = dict(line.split("=", 1) for line in text.splitlines())
    gen = _generation(ws)
    if os.stat(ws).st_ino != int(record["ino"]) or (record["gen"] != "-" and gen is not None and gen != record["gen"]):
        return f"{ws.resolve()} was re-created"
    return f"{ws.resolve()}/.stringsh/workspace-id is missing: the folder was re-created or its .stringsh/ removed"


def _generation(ws: Path) -> str | None:
    from stringsh.workspace.identity import generation

    fd = os.open(ws, os.O_RDONLY | os.O_DIRECTORY)
    try:
        gen = generation(fd)
    finally:
        os.close(fd)
    return None if gen is None else str(gen)
