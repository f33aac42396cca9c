"""The search speed-ups keep every answer: a `**/NAME` pattern matched on the last name answers
as wcmatch's whole-path translation does; the secret list's per-name memory answers as the full check does; a walk
without per-file stats finds and counts what the walk with them does; and nested `.gitignore` files are read as git
and ripgrep read them (the deepest rule matching a path decides, so `!keep.log` re-includes)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stringsh.commands.searchreply import limit_note
from stringsh.workspace import Policy, Workspace
from stringsh.workspace.ops.glob import NamePattern, compile_pattern, translate
from stringsh.workspace.ops.walk import CLOCK_EVERY, WalkStats, start_at, walk
from stringsh.workspace.secrets import DEFAULT_ALLOW_GLOBS, DEFAULT_DENY_GLOBS, SecretMatcher

NAME_PATTERNS = ["**/*.py", "**/.*", "**/{a,b}.md", "**/[!a]*", "**/?.txt", "**/*", "**/.env*", "**/a*b.c"]
#: Names a walk yields (never `.` or `..`, which wcmatch's `**` refuses to cross).
PART = st.sampled_from(["a", "b", ".x", "a.py", ".env", "b.md", "x.txt", "ab.c", "a.b.c", "...", ".a.", "py", "*"])


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(PART, min_size=1, max_size=4), pattern=st.sampled_from(NAME_PATTERNS))
def test_a_name_pattern_answers_as_the_whole_path_translation(parts: list[str], pattern: str) -> None:
    fast = compile_pattern(pattern)
    assert isinstance(fast, NamePattern)
    rel = "/".join(parts)
    assert (fast.fullmatch(rel) is None) == (translate(pattern).fullmatch(rel) is None), rel


@pytest.mark.parametrize("pattern", ["*.py", "src/*.py", "**/src/*.py", "**", "**/**", "a/**/b.py", "**/{a,b/c}"])
def test_other_patterns_keep_the_whole_path_translation(pattern: str) -> None:
    assert not isinstance(compile_pattern(pattern), NamePattern)


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(st.sampled_from([".aws", "credentials", "config", ".env", ".env.example", "id_rsa.pub", "a",
                                       ".kube", "kubeconfig", "x.pem", "gcloud", ".config", "Credentials"]),
                      min_size=1, max_size=4))
def test_the_secret_lists_remembered_leaf_answers_match_a_fresh_check(parts: list[str]) -> None:
    """A name met once is remembered only when no whole-path pattern can end in it: asking in any order, in any
    folder, gives the answer of a matcher that has seen nothing."""
    seasoned = SecretMatcher((*DEFAULT_DENY_GLOBS, "private/*.txt"), DEFAULT_ALLOW_GLOBS)
    for end in range(1, len(parts) + 1):
        rel = "/".join(parts[:end])
        fresh = SecretMatcher((*DEFAULT_DENY_GLOBS, "private/*.txt"), DEFAULT_ALLOW_GLOBS)
        assert seasoned.denied_leaf(rel) == fresh.denied_leaf(rel), rel
        assert seasoned.denied_leaf("other/" + rel) == fresh.denied_leaf("other/" + rel), rel


def test_a_walk_without_stats_finds_and_counts_the_same(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "a" / "b").mkdir(parents=True)
    (tmp_path / "out.txt").write_text("x\n")
    for rel in ("one.txt", "a/two.py", "a/b/three.md", ".env", "a/.gitignore"):
        (root / rel).write_text("x\n")
    (root / "a" / ".gitignore").write_text("*.md\n")
    os.symlink("one.txt", root / "link.txt")
    os.symlink(tmp_path / "out.txt", root / "out.txt")
    os.symlink("gone", root / "dangling")
    os.mkfifo(root / "fifo")
    workspace = Workspace(root)
    try:
        runs = []
        for stat_files in (True, False):
            stats = WalkStats()
            found = [(f.rel, f.st is None) for f in walk(workspace, start_at(workspace, "."), stats,
                                                           stat_files=stat_files)]
            runs.append((found, tuple(stats.snapshot())[:7]))
    finally:
        workspace.close()
    (with_stats, counts), (without, counts_without) = runs
    assert [rel for rel, _ in with_stats] == [rel for rel, _ in without] == [
        "one.txt", "a/.gitignore", "a/two.py"]  # a folder's files, then its folders; no symlink is followed
    assert counts == counts_without
    assert counts[4] == 3  # link.txt, out.txt, dangling: counted, not followed
    assert all(unstatted for _, unstatted in without)


def test_nested_gitignore_negation_re_includes_as_git_does(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("*.log\nbuild/\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".gitignore").write_text("!keep.log\nlocal.txt\n")
    for rel in ("top.log", "sub/keep.log", "sub/other.log", "sub/local.txt", "local.txt"):
        (tmp_path / rel).write_text("hit\n")
    policy = Policy.default(tmp_path)
    workspace = Workspace(tmp_path, policy)
    try:
        listed = sorted(m.rel for m in workspace.glob("**").matches)
        found = [line.path for line in workspace.grep("hit", engine="python").lines]
    finally:
        workspace.close()
    assert listed == [".gitignore", "local.txt", "sub/.gitignore", "sub/keep.log"]
    assert found == ["local.txt", "sub/keep.log"]


def test_a_walk_past_its_time_stops_with_reason_time(tmp_path: Path) -> None:
    """The clock is read every CLOCK_EVERY entries: a walk whose time is up stops at the first look."""
    for index in range(CLOCK_EVERY + 10):
        (tmp_path / f"f{index:04d}.txt").write_text("x\n")
    workspace = Workspace(tmp_path)
    try:
        stats = WalkStats(seconds=0.0)
        found = list(walk(workspace, start_at(workspace, "."), stats))
        unhurried = WalkStats()
        everything = list(walk(workspace, start_at(workspace, "."), unhurried))
    finally:
        workspace.close()
    assert len(found) == CLOCK_EVERY - 1  # the entry that read the clock is counted, not yielded
    assert tuple(stats.snapshot())[:7] == (CLOCK_EVERY - 1, CLOCK_EVERY, 0, 0, 0, True, "time")
    assert len(everything) == CLOCK_EVERY + 10 and unhurried.limit_reason is None
    assert limit_note(stats.snapshot(), len(found)) == (
        "Stopped at the search's time limit: search a narrower path.")


def test_a_remembered_gitignore_is_read_again_once_it_changes(tmp_path: Path) -> None:
    """The compiled `.gitignore` is kept by the file's identity: an edit of the same size, even one that puts the
    modification time back, is seen by the next search (the change time moves)."""
    (tmp_path / ".gitignore").write_text("a.log\n")
    for name in ("a.log", "b.log"):
        (tmp_path / name).write_text("hit\n")
    workspace = Workspace(tmp_path)
    try:
        before = [line.path for line in workspace.grep("hit", engine="python").lines]
        again = [line.path for line in workspace.grep("hit", engine="python").lines]
        st = (tmp_path / ".gitignore").stat()
        (tmp_path / ".gitignore").write_text("b.log\n")
        os.utime(tmp_path / ".gitignore", ns=(st.st_atime_ns, st.st_mtime_ns))
        after = [line.path for line in workspace.grep("hit", engine="python").lines]
    finally:
        workspace.close()
    assert before == again == ["b.log"]
    assert after == ["a.log"]
