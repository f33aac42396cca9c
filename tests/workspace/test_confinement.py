"""Confinement cases that need more than a path: check-then-swap races (A5), a symlinked root (A6), hard links
(A8), in-root symlinks that keep working, and /undo after a file or folder was swapped for an escaping link."""

from __future__ import annotations

import os
import shlex
import threading
from pathlib import Path

import pytest

from stringsh.dispatcher import Dispatcher
from stringsh.errors import StringError
from stringsh.workspace import ChangeSet, FileChange, Workspace, atomic, changes

from .conftest import snapshot


def test_leaf_swapped_for_symlink_after_resolution_is_not_followed(world: Path) -> None:
    (world / "f").write_text("mine\n")
    workspace = Workspace(world)
    res = workspace.confiner.resolve("f")
    (world / "f").unlink()
    os.symlink(world.parent.parent / "outside" / "secret.txt", world / "f")
    with pytest.raises(StringError) as caught:
        atomic.read_at(res.parent_fd, res.name, res.rel)
    assert caught.value.code == "INVALID_PATH"
    res.close()
    workspace.close()


def test_parent_swapped_for_symlink_between_check_and_write(world: Path) -> None:
    outside = world.parent.parent / "outside" / "dir"
    (world / "d").mkdir()
    workspace = Workspace(world)
    plan = changes.plan(workspace.confiner, 0, "d/f", b"new\n", None, None)
    os.rename(world / "d", world / "d_old")
    os.symlink(outside, world / "d")
    changes.execute(999, [plan], workspace.state.fsync_pool)
    changes.close_plans([plan])
    assert (world / "d_old" / "f").read_bytes() == b"new\n"
    assert list(outside.iterdir()) == []
    workspace.close()


def test_leaf_swapped_for_symlink_before_rename_replaces_the_link_only(world: Path) -> None:
    secret = world.parent.parent / "outside" / "secret.txt"
    (world / "f").write_text("mine\n")
    workspace = Workspace(world)
    plan = changes.plan(workspace.confiner, 0, "f", b"new\n", None, None)
    (world / "f").unlink()
    os.symlink(secret, world / "f")
    changes.execute(998, [plan], workspace.state.fsync_pool)
    changes.close_plans([plan])
    assert not (world / "f").is_symlink()
    assert (world / "f").read_bytes() == b"new\n"
    assert secret.read_text() == "TOP SECRET\n"
    workspace.close()


def test_racing_folder_swap_never_writes_outside(world: Path) -> None:
    """A thread flips `d` between a real folder and a link to outside while writes go to d/f."""
    outside = world.parent.parent / "outside" / "dir"
    before = snapshot(world.parent.parent, world)
    (world / "real").mkdir()
    os.symlink("real", world / "d")
    stop = threading.Event()

    def flip() -> None:
        while not stop.is_set():
            os.symlink(outside, world / "tmp_link")
            os.replace(world / "tmp_link", world / "d")
            os.symlink("real", world / "tmp_link")
            os.replace(world / "tmp_link", world / "d")

    flipper = threading.Thread(target=flip)
    flipper.start()
    workspace = Workspace(world)
    codes: set[str] = set()
    try:
        for i in range(150):
            try:
                workspace.write_text("d/f", f"{i}\n")
                codes.add("ok")
            except StringError as exc:
                codes.add(exc.code)
    finally:
        stop.set()
        flipper.join()
        workspace.close()
    assert codes <= {"ok", "INVALID_PATH"}
    assert list(outside.iterdir()) == []
    assert snapshot(world.parent.parent, world) == before


def test_root_given_through_a_symlink_accepts_both_spellings(tmp_path: Path) -> None:
    real = tmp_path / "private" / "proj"
    real.mkdir(parents=True)
    os.symlink(real, tmp_path / "proj")
    workspace = Workspace(tmp_path / "proj")
    assert workspace.write_text(str(tmp_path / "proj" / "a.txt"), "a\n").rel == "a.txt"
    assert workspace.write_text(str(real / "b.txt"), "b\n").rel == "b.txt"
    assert workspace.relative(str(tmp_path / "proj")) == "."
    with pytest.raises(StringError) as caught:
        workspace.relative(str(tmp_path / "private" / "proj2" / "x"))
    assert caught.value.code == "FILE_NOT_ALLOWED"
    workspace.close()
    dispatcher = Dispatcher(tmp_path / "proj")
    reply = dispatcher.execute(f"/write {shlex.quote(f'{real}/c.txt')}\nc\n")
    assert reply.text.split("\n", 1)[1] == "Created: c.txt (2 bytes, 1 line)"
    dispatcher.close()


def test_hard_link_to_a_secret_is_neither_read_nor_replaced(world: Path) -> None:
    key = world.parent.parent / "home" / ".ssh" / "id_rsa"
    os.link(key, world / "h")
    dispatcher = Dispatcher(world)
    workspace = dispatcher.workspace
    for read in (workspace.read_text, workspace.read_bytes, workspace.fingerprint):
        with pytest.raises(StringError) as caught:
            read("h")
        assert caught.value.code == "SECRET_DENIED"
    assert dispatcher.execute("/append h\nx\n").code == "SECRET_DENIED"
    assert dispatcher.execute("/write h\nx\n").code == "CONFLICT"
    # Replacing it would keep the secret's bytes in the journal, and /undo would put them back in a plain file.
    forced = dispatcher.execute("/write --force h\nx\n")
    assert forced.text == (
        "re: /write --force h\nERROR(SECRET_DENIED): Refusing a hard-linked file (it may alias a file outside the "
        "workspace): h\nTo allow hard links, set [secrets] allow_hardlinks = true in your own policy "
        f"({Path(os.environ['STRINGSH_CONFIG_DIR']) / 'policy.toml'}); the workspace's stringsh.toml cannot widen it."
    )
    with pytest.raises(StringError) as caught:
        workspace.apply(ChangeSet((FileChange("h", None),)))
    assert caught.value.code == "SECRET_DENIED"
    assert dispatcher.execute("/undo").text == (
        "re: /undo\nERROR(NOT_FOUND): Nothing to undo.\n"
        "/changes lists the changes there are."
    )
    assert key.read_text() == "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    assert (world / "h").stat().st_nlink == 2
    assert workspace.history() == []
    dispatcher.close()


def test_in_root_symlinks_work_and_stay_links(world: Path) -> None:
    (world / "docs").mkdir()
    (world / "docs" / "real.md").write_text("old\n")
    os.symlink("docs/real.md", world / "alias.md")
    os.symlink("docs", world / "d")
    os.symlink(str(world / "docs" / "new.md"), world / "dangling-inside.md")
    workspace = Workspace(world)
    assert workspace.write_text("alias.md", "new\n").rel == "docs/real.md"
    assert (world / "alias.md").is_symlink() and (world / "docs" / "real.md").read_text() == "new\n"
    assert workspace.write_text("d/other.md", "o\n").rel == "docs/other.md"
    assert workspace.write_text("dangling-inside.md", "created\n").rel == "docs/new.md"
    assert (world / "dangling-inside.md").is_symlink()
    assert [(e.name, e.is_dir) for e in workspace.list_dir(".")] == [
        ("alias.md", False), ("d", True), ("dangling-inside.md", False), ("docs", True)
    ]
    workspace.undo("main")
    assert not (world / "docs" / "new.md").exists() and (world / "dangling-inside.md").is_symlink()
    workspace.close()


def test_undo_refuses_a_file_swapped_for_an_escaping_symlink(world: Path) -> None:
    secret = world.parent.parent / "outside" / "secret.txt"
    dispatcher = Dispatcher(world)
    assert dispatcher.execute("/write f\nmine\n").ok
    (world / "f").unlink()
    os.symlink(secret, world / "f")
    before = snapshot(world.parent.parent, world)
    reply = dispatcher.execute("/undo")
    assert reply.text == (
        "re: /undo\nERROR(INVALID_PATH): Path leaves the workspace through a symlink: f\n"
        "Symlinks are followed only while they point inside the workspace."
    )
    assert snapshot(world.parent.parent, world) == before
    dispatcher.close()


def test_undo_refuses_a_folder_swapped_for_an_escaping_symlink(world: Path) -> None:
    outside = world.parent.parent / "outside" / "dir"
    (outside / "f").write_text("mine\n")
    dispatcher = Dispatcher(world)
    assert dispatcher.execute("/write d/f\nmine\n").ok
    os.rename(world / "d", world / "d_old")
    os.symlink(outside, world / "d")
    before = snapshot(world.parent.parent, world)
    assert dispatcher.execute("/undo").code == "INVALID_PATH"
    assert dispatcher.execute("/undo").code == "INVALID_PATH"  # still the newest change: undo does not skip it
    assert snapshot(world.parent.parent, world) == before
    dispatcher.close()


def test_undo_refuses_a_file_replaced_by_an_in_root_link_to_other_content(world: Path) -> None:
    dispatcher = Dispatcher(world)
    assert dispatcher.execute("/write other\nother\n").ok
    assert dispatcher.execute("/write f\nmine\n").ok
    (world / "f").unlink()
    os.symlink("other", world / "f")
    assert dispatcher.execute("/undo").text == (
        "re: /undo\nERROR(CONFLICT): Refusing to undo: f changed since change 2 wrote it.\n"
        "Nothing was changed; open f to see it, or /undo --skip to leave it and go on to older changes."
    )
    dispatcher.close()


def test_state_folder_planted_as_symlink_is_refused(world: Path) -> None:
    outside = world.parent.parent / "outside" / "dir"
    os.symlink(outside, world / ".stringsh")
    workspace = Workspace(world)
    with pytest.raises(StringError) as caught:
        workspace.write_text("a.txt", "a\n")
    assert caught.value.code == "NOT_PERMITTED"
    assert list(outside.iterdir()) == []
    assert not (world / "a.txt").exists()
    workspace.close()
