"""The sandbox watch's walks for nested git dirs, shared by every shell of a process on one folder (watch.py):
sharing never lets a command's check take a walk that started before it asked."""

from __future__ import annotations

from pathlib import Path

from stringsh.workspace.shell.watch import ProtectedWatch


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
