"""rg's `.gitignore` check (ops/ignorecheck.py) remembers a folder it listed with no `.gitignore` by its identity,
and yet sees whatever is planted in it later: a `.gitignore` link or FIFO, a new folder holding one, a rule that
stops ignoring a folder holding one. A folder changed too lately is not remembered."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from stringsh.workspace.ops import ignorecheck
from stringsh.workspace.ops.ignorecheck import plain_ignore_files, remembered
from stringsh.workspace.paths import DIR_FLAGS

from .test_grep_rg_walk import workspace


class Clock:
    """The wall clock the age rule reads (ignorecheck.wall_ns), stopped by `later` just past RACY_NS after every
    change made so far: those are old enough to be remembered, and any made since is too new. The file system stamps
    a change with a coarse clock, so `later` first waits until a probe file outside the tree is stamped later than
    `folders` were (touching it until it is: a condition, never a sleep); a change made afterwards is stamped no
    earlier than the probe."""

    def __init__(self, probe: Path) -> None:
        self.probe = probe
        self.stopped: int | None = None

    def __call__(self) -> int:
        return time.time_ns() if self.stopped is None else self.stopped

    def later(self, *folders: Path) -> None:
        newest = max(os.stat(folder).st_ctime_ns for folder in folders)
        self.probe.touch()
        while (stamped := os.stat(self.probe).st_ctime_ns) <= newest:
            os.utime(self.probe)
        self.stopped = stamped + ignorecheck.RACY_NS


def checked(root: Path) -> bool:
    """The check over the whole workspace at `root`."""
    ws = workspace(root)
    try:
        return plain_ignore_files(ws, os.open(".", DIR_FLAGS, dir_fd=ws.confiner.root_fd), ".", time.monotonic() + 60)
    finally:
        ws.close()


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> Clock:
    clock = Clock(tmp_path_factory.mktemp("clock") / "probe")
    monkeypatch.setattr(ignorecheck, "wall_ns", clock)
    return clock


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, clock: Clock) -> Path:
    monkeypatch.setattr(ignorecheck, "_SETTLED", {})
    for folder in ("a/b", "a/c", "d"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "x.py").write_text("x\n")
    assert checked(tmp_path)
    assert remembered(os.stat(tmp_path)) is None  # just made: too new to be remembered
    clock.later(tmp_path, *(tmp_path / folder for folder in ("a", "a/b", "a/c", "d")))
    assert checked(tmp_path)
    assert sorted(remembered(os.stat(tmp_path)) or ()) == ["a", "d"]
    assert sorted(remembered(os.stat(tmp_path / "a")) or ()) == ["b", "c"]
    assert remembered(os.stat(tmp_path / "a/b")) == ()
    return tmp_path


@pytest.mark.parametrize("plant", ["link", "fifo"])
def test_a_gitignore_planted_in_a_remembered_folder_is_seen(tree: Path, plant: str) -> None:
    target = tree / "a/b/.gitignore"
    os.symlink("/etc/passwd", target) if plant == "link" else os.mkfifo(target)
    assert remembered(os.stat(tree / "a/b")) is None  # its times moved
    assert not checked(tree)


def test_a_folder_planted_in_a_remembered_folder_is_walked(tree: Path) -> None:
    (tree / "a/c/new").mkdir()
    os.symlink("/etc/passwd", tree / "a/c/new/.gitignore")
    assert not checked(tree)


def test_a_remembered_folder_swapped_for_a_link_is_not_walked_as_a_folder(tree: Path, tmp_path_factory) -> None:
    outside = tmp_path_factory.mktemp("outside")
    os.symlink("/etc/passwd", outside / ".gitignore")
    os.rename(tree / "d", outside / "d")
    os.symlink(outside, tree / "d")  # rg does not follow it: nothing below it is rg's
    assert remembered(os.stat(tree)) is None  # the root's times moved: its folders are listed again
    assert checked(tree)


def test_a_rule_that_stops_ignoring_a_folder_has_it_walked(tree: Path, clock: Clock) -> None:
    (tree / ".gitignore").write_text("c/\n")
    os.symlink("/etc/passwd", tree / "a/c/.gitignore")
    clock.later(tree, tree / "a/c")
    assert checked(tree)  # `a/c` is ignored: rg never enters it
    assert remembered(os.stat(tree)) is None  # a folder with rules is never remembered
    (tree / ".gitignore").write_text("other/\n")  # the same name: the root's times stay, its rules change
    assert not checked(tree)


def test_a_folder_changed_lately_is_listed_again_and_not_remembered(tree: Path, clock: Clock) -> None:
    (tree / "d" / "y.py").write_text("y\n")
    assert checked(tree)
    assert remembered(os.stat(tree / "d")) is None  # changed less than RACY_NS ago
    clock.later(tree / "d")
    assert checked(tree)
    assert remembered(os.stat(tree / "d")) == ()
