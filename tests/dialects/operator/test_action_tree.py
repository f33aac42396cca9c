"""fs.delete, fs.copy, fs.move/fs.rename: the engine's operations, one change set each, /undo-able."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from stringsh.protocol.operator_model import ConfirmRequest, Result
from stringsh.workspace import Workspace
from tests.dialects.operator.actions_support import Recorder, run, snapshot


@pytest.fixture
def workspace(ws: Path) -> Workspace:
    (ws / "a.txt").write_text("one\ntwo\n")
    (ws / "dir" / "sub").mkdir(parents=True)
    (ws / "dir" / "x.txt").write_text("x\n")
    (ws / "dir" / "sub" / "y.txt").write_text("y\n")
    return Workspace(ws)


def test_delete_file_shows_removed_lines_undo_restores(workspace: Workspace, ws: Path) -> None:
    asked = Recorder()
    assert run(workspace, "fs.delete", asked, path="a.txt") == Result("c1", True, "Deleted", change_id=1)
    assert not (ws / "a.txt").exists()
    assert asked.requests == [ConfirmRequest("fs.delete", "a.txt", "delete a.txt",
                                             "--- a/a.txt\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-one\n-two")]
    assert len(workspace.history()) == 1 and workspace.history()[0].frontend == "operator"
    workspace.undo("main")
    assert (ws / "a.txt").read_text() == "one\ntwo\n"


def test_delete_folder_recursive_one_change_set_undo_restores(workspace: Workspace, ws: Path) -> None:
    before = snapshot(ws)
    asked = Recorder()
    assert run(workspace, "fs.delete", asked, path="dir").ok
    assert not (ws / "dir").exists()
    assert asked.requests[0].summary == "delete folder dir and everything in it"
    assert asked.requests[0].diff == "deleted: dir/sub/\ndeleted: dir/x.txt\ndeleted: dir/sub/y.txt"
    assert len(workspace.history()) == 1
    workspace.undo("main")
    assert snapshot(ws) == before


def test_delete_link_not_its_target(workspace: Workspace, ws: Path) -> None:
    os.symlink("a.txt", ws / "ln")
    asked = Recorder()
    assert run(workspace, "fs.delete", asked, path="ln").ok
    assert not os.path.lexists(ws / "ln") and (ws / "a.txt").exists()
    assert asked.requests[0].summary == "delete link ln"


def test_delete_refusals(workspace: Workspace, ws: Path) -> None:
    (ws / ".env").write_text("T=1\n")
    before = snapshot(ws)
    assert run(workspace, "fs.delete", path="gone") == Result("c1", False, "NOT_FOUND: File not found: gone")
    assert run(workspace, "fs.delete", path=".env").summary.startswith("SECRET_DENIED: ")
    assert run(workspace, "fs.delete", path="dir", confirm=Recorder("not confirmed: declined by the user; "
                                                                     "nothing was written")) == Result(
        "c1", False, "not confirmed: declined by the user; nothing was written")
    assert snapshot(ws) == before and workspace.history() == []


def test_copy_file_parents_made_undo_removes(workspace: Workspace, ws: Path) -> None:
    asked = Recorder()
    assert run(workspace, "fs.copy", asked, path="a.txt", path_to="new/b.txt") == Result("c1", True, "Copied",
                                                                                               change_id=1)
    assert (ws / "new" / "b.txt").read_text() == "one\ntwo\n"
    assert asked.requests == [ConfirmRequest("fs.copy", "a.txt", "copy a.txt to new/b.txt",
                                             "--- /dev/null\n+++ b/new/b.txt\n@@ -0,0 +1,2 @@\n+one\n+two")]
    assert len(workspace.history()) == 1
    workspace.undo("main")
    assert not (ws / "new" / "b.txt").exists()


def test_copy_over_an_existing_file_needs_overwrite(workspace: Workspace, ws: Path) -> None:
    assert run(workspace, "fs.copy", path="a.txt", path_to="dir/x.txt") == Result(
        "c1", False, "CONFLICT: Destination exists: dir/x.txt; add overwrite: true to replace it")
    assert (ws / "dir" / "x.txt").read_text() == "x\n"
    asked = Recorder()
    assert run(workspace, "fs.copy", asked, path="a.txt", path_to="dir/x.txt", overwrite="true").ok
    assert (ws / "dir" / "x.txt").read_text() == "one\ntwo\n"
    assert asked.requests[0].summary == "copy a.txt to dir/x.txt (replacing it)"
    assert asked.requests[0].diff == "--- a/dir/x.txt\n+++ b/dir/x.txt\n@@ -1 +1,2 @@\n-x\n+one\n+two"
    assert run(workspace, "fs.copy", path="a.txt", path_to="c.txt", overwrite="yes") == Result(
        "c1", False, "Invalid OPERATOR_CMD (ERR_INVALID_OVERWRITE): overwrite must be true or false (got 'yes').")


def test_copy_refusals(workspace: Workspace, ws: Path) -> None:
    before = snapshot(ws)
    assert run(workspace, "fs.copy", path="a.txt", path_to="dir") == Result(
        "c1", False, "INVALID_TARGET: path_to is an existing folder: dir; name the new path itself (dir/<name>)")
    assert run(workspace, "fs.copy", path="a.txt") == Result(
        "c1", False, "Invalid OPERATOR_CMD (ERR_MISSING_PATH_TO): path_to is required.")
    assert run(workspace, "fs.copy", path="a.txt", path_to=".env").summary.startswith("SECRET_DENIED: ")
    assert snapshot(ws) == before and workspace.history() == []


@pytest.mark.parametrize(("action", "summary"), [("fs.move", "Moved"), ("fs.rename", "Renamed")])
def test_move_file_and_undo(workspace: Workspace, ws: Path, action: str, summary: str) -> None:
    asked = Recorder()
    assert run(workspace, action, asked, path="a.txt", path_to="n/b.txt") == Result("c1", True, summary, change_id=1)
    assert not (ws / "a.txt").exists() and (ws / "n" / "b.txt").read_text() == "one\ntwo\n"
    assert asked.requests == [ConfirmRequest(action, "a.txt", "move a.txt to n/b.txt",
                                             "rename from a.txt\nrename to n/b.txt")]
    assert len(workspace.history()) == 1
    workspace.undo("main")
    assert (ws / "a.txt").read_text() == "one\ntwo\n" and not (ws / "n" / "b.txt").exists()


def test_move_folder_one_change_set(workspace: Workspace, ws: Path) -> None:
    before = snapshot(ws)
    assert run(workspace, "fs.move", path="dir", path_to="moved").ok
    assert (ws / "moved" / "sub" / "y.txt").read_text() == "y\n" and not (ws / "dir").exists()
    assert len(workspace.history()) == 1
    workspace.undo("main")
    assert snapshot(ws) == before


def test_move_refusals(workspace: Workspace, ws: Path) -> None:
    before = snapshot(ws)
    assert run(workspace, "fs.move", path="a.txt", path_to="dir") == Result(
        "c1", False, "INVALID_TARGET: path_to is an existing folder: dir; name the new path itself (dir/<name>)")
    assert run(workspace, "fs.move", path="a.txt", path_to="dir/x.txt") == Result(
        "c1", False, "CONFLICT: Destination exists: dir/x.txt; add overwrite: true to replace it")
    assert run(workspace, "fs.move", path="gone", path_to="b") == Result("c1", False, "NOT_FOUND: File not found: gone")
    assert run(workspace, "fs.move", path="a.txt", path_to="../out").summary.startswith("INVALID_PATH: ")
    assert snapshot(ws) == before and workspace.history() == []
    assert run(workspace, "fs.move", path="a.txt", path_to="dir/x.txt", overwrite="true").ok
    assert (ws / "dir" / "x.txt").read_text() == "one\ntwo\n"


def test_copy_folder_one_change_set_modes_kept_undo_removes(workspace: Workspace, ws: Path) -> None:
    os.chmod(ws / "dir" / "x.txt", 0o750)
    (ws / "dir" / "none").mkdir()
    asked = Recorder()
    assert run(workspace, "fs.copy", asked, path="dir", path_to="out/copy") == Result("c1", True, "Copied",
                                                                                              change_id=1)
    assert (ws / "out" / "copy" / "x.txt").read_text() == "x\n"
    assert (ws / "out" / "copy" / "sub" / "y.txt").read_text() == "y\n"
    assert (ws / "out" / "copy" / "none").is_dir()  # the engine's copy: empty folders too, as cp -r
    assert os.stat(ws / "out" / "copy" / "x.txt").st_mode & 0o777 == 0o750
    assert asked.requests == [ConfirmRequest("fs.copy", "dir", "copy folder dir to out/copy (2 files)",
                                             "new file: out/copy/sub/y.txt\nnew file: out/copy/x.txt")]
    assert len(workspace.history()) == 1
    workspace.undo("main")
    assert not (ws / "out").exists()


def test_copy_folder_refusals(workspace: Workspace, ws: Path) -> None:
    (ws / "dir2").mkdir()
    os.symlink("../a.txt", ws / "dir2" / "ln")
    (ws / "file").write_text("f\n")
    (ws / "dir3").mkdir()
    (ws / "dir3" / ".env").write_text("T=1\n")
    before = snapshot(ws)
    assert run(workspace, "fs.copy", path="dir2", path_to="d3") == Result(
        "c1", False, "INVALID_TARGET: dir2 holds dir2/ln, a symlink; fs.copy copies folders of plain files and "
        "folders only")
    assert run(workspace, "fs.copy", path="dir", path_to="file", overwrite="true") == Result(
        "c1", False, "CONFLICT: Destination exists: file; a folder is copied to a new path only")
    # a secret inside refuses the whole copy, as a copy of the secret itself does (it was left out before)
    assert run(workspace, "fs.copy", path="dir3", path_to="d4") == Result(
        "c1", False, "SECRET_DENIED: Access to a secret file is denied: dir3/.env")
    assert run(workspace, "fs.copy", path="dir", path_to="dir/sub/again") == Result(
        "c1", False, "INVALID_TARGET: Cannot copy a folder into itself: dir → dir/sub/again")
    assert run(workspace, "fs.copy", path="dir", path_to=".git/hooks") == Result(
        "c1", False, "NOT_PERMITTED: .git/hooks is protected: it can run code later")
    assert snapshot(ws) == before and workspace.history() == []
    assert not (ws / "d3").exists() and not (ws / "d4").exists()


def test_copy_empty_folder(workspace: Workspace, ws: Path) -> None:
    (ws / "empty").mkdir()
    assert run(workspace, "fs.copy", path="empty", path_to="e2") == Result("c1", True, "Copied", change_id=1)
    assert (ws / "e2").is_dir()
