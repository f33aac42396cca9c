"""The sandbox watch's walks for nested git dirs, shared by every shell of a process on one folder (watch.py):
sharing never lets a command's check take a walk that started before it asked."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from stringsh.workspace.shell import watch
from stringsh.workspace.shell.watch import GitDir, ProtectedWatch, TreeWalk


def plant_nested_git_dir(ws: Path) -> Path:
    """A git dir made after the shells started, with a hook in it; returns the hook."""
    git = ws / "sub" / ".git"
    for folder in ("objects", "refs", "hooks"):
        (git / folder).mkdir(parents=True)
    (git / "HEAD").write_text("ref: refs/heads/main\n")
    hook = git / "hooks" / "post-commit"
    hook.write_text("#!/bin/sh\necho ran\n")
    return hook


def test_a_check_walks_again_when_the_shared_walk_started_before_it_asked(ws: Path) -> None:
    (ws / "tree" / "d").mkdir(parents=True)
    first, second = ProtectedWatch([ws], ws), ProtectedWatch([ws], ws)  # two shells of one process, one folder
    assert first.check() == []  # the walk both shells could share from here on
    hook = plant_nested_git_dir(ws)
    notes = second.check()  # a command's check: a walk from after it asked finds the git dir made meanwhile
    assert notes == ["note: removed sub/.git/hooks/post-commit written by the command: protected path"]
    assert not hook.exists()
    assert first.check() == []  # swept once, by whichever shell looked first


def test_an_idle_poll_takes_a_recent_walk_and_the_next_command_still_sees_everything(ws: Path) -> None:
    first, second = ProtectedWatch([ws], ws), ProtectedWatch([ws], ws)
    assert first.check() == []
    hook = plant_nested_git_dir(ws)
    assert second.check(stale=60) == []  # an idle poll may take the other shell's walk of a moment ago
    assert hook.exists()
    assert second.check() == ["note: removed sub/.git/hooks/post-commit written by the command: protected path"]
    assert not hook.exists()


def listed_folders(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The folders the walks list from now on (each os.scandir call)."""
    listed: list[str] = []
    real = os.scandir

    def scandir(path: str) -> object:
        listed.append(os.path.basename(path))
        return real(path)

    monkeypatch.setattr(watch.os, "scandir", scandir)
    return listed


def settled_tree(ws: Path, monkeypatch: pytest.MonkeyPatch) -> TreeWalk:
    """Three levels of folders, older than the walk's racy window (set to nothing here, and a file-time tick
    waited for), walked once."""
    for name in ("a/b/c", "a/d", "e"):
        (ws / name).mkdir(parents=True)
        (ws / name / "f.txt").write_text("x\n")
    monkeypatch.setattr(watch, "RACY_NS", 0)
    time.sleep(0.05)  # past the coarse tick the folders were made in, so a later entry moves their times
    walk = TreeWalk(ws)
    assert walk.walk(10_000) == []
    return walk


def test_a_walk_lists_only_the_folders_changed_since_the_last(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    walk = settled_tree(ws, monkeypatch)
    listed = listed_folders(monkeypatch)
    assert walk.walk(10_000) == []
    assert listed == []
    (ws / "a" / "b" / "c" / ".git").mkdir()
    assert walk.walk(10_000) == [GitDir("a/b/c/.git", True)]
    assert listed == ["c"]


def test_a_folder_whose_modification_time_is_set_back_is_still_listed(ws: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A command can put a folder's modification time back after making a `.git` in it; not its change time."""
    walk = settled_tree(ws, monkeypatch)
    folder = ws / "a" / "d"
    before = folder.stat()
    (folder / ".git").write_text("gitdir: /elsewhere\n")
    os.utime(folder, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert folder.stat().st_mtime_ns == before.st_mtime_ns
    assert walk.walk(10_000) == [GitDir("a/d/.git", False)]


def test_a_git_dir_moved_into_place_whole_is_found(ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`mv` of a folder made elsewhere: only the folder it lands in changes, and the git dir is found in it."""
    walk = settled_tree(ws, monkeypatch)
    made = tmp_path / "made"
    for name in ("objects", "refs"):
        (made / name).mkdir(parents=True)
    (made / "HEAD").write_text("ref: refs/heads/main\n")
    os.rename(made, ws / "a" / "b" / "repo")
    assert walk.walk(10_000) == [GitDir("a/b/repo", True)]


def test_a_folder_changed_within_the_racy_window_is_listed_every_time(ws: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Just made (within RACY_NS of the walk), a folder's times may not move for an entry made in the same tick."""
    (ws / "fresh").mkdir()
    walk = TreeWalk(ws)
    walk.walk(10_000)
    listed = listed_folders(monkeypatch)
    walk.walk(10_000)
    assert sorted(listed) == sorted([ws.name, "fresh"])


def test_a_git_dir_test_through_a_link_is_listed_every_time(ws: Path, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """`objects` a link: whether the folder looks like a git dir follows the link's target, which can become a
    folder without the folder holding the link changing."""
    walk = settled_tree(ws, monkeypatch)
    repo = ws / "e"
    (repo / "refs").mkdir()
    (repo / "HEAD").write_text("ref: refs/heads/main\n")
    target = tmp_path / "objects-later"
    (repo / "objects").symlink_to(target)
    time.sleep(0.05)
    assert walk.walk(10_000) == []
    target.mkdir()
    assert walk.walk(10_000) == [GitDir("e", True)]


def test_a_quick_poll_takes_another_shells_recent_look_and_a_command_check_never_does(
        ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Idle polls of many shells share their looks at the protected paths (QUICK_SHARE); the check after a command
    looks itself."""
    monkeypatch.setattr(watch, "QUICK_SHARE", 60)
    first, second = ProtectedWatch([ws], ws), ProtectedWatch([ws], ws)
    assert first.check(scan=False) == []  # looks: stringsh.toml absent
    (ws / "stringsh.toml").write_text("[permissions]\nwrite = true\n")
    assert second.check("since the last command", scan=False) == []  # the other shell's look of a moment ago
    assert (ws / "stringsh.toml").exists()
    assert second.check() == ["note: removed stringsh.toml written by the command: protected path"]
    assert not (ws / "stringsh.toml").exists()


def test_a_quick_poll_past_the_shared_look_sweeps(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(watch, "QUICK_SHARE", 0)
    first, second = ProtectedWatch([ws], ws), ProtectedWatch([ws], ws)
    assert first.check(scan=False) == []
    (ws / "stringsh.toml").write_text("[permissions]\nwrite = true\n")
    assert second.check("since the last command", scan=False) == [
        "note: removed stringsh.toml written since the last command: protected path"]
