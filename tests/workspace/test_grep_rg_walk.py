"""grep's two engines agree where rg's view of the tree could differ from the confined walk's:
version-control and engine folders, temp files, hard links, file and folder symlinks, ignored files, file
and folder names that are not UTF-8 (which the Confiner's paths cannot name: the rg engine dropped such files and
counted an I/O error, while the Python engine showed them), the read limit's edge, and a walk stopped at a limit."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from stringsh.workspace import Policy, Workspace
from stringsh.workspace.ops.grep import GrepResult

LIMIT = 1000


def corpus(root: Path) -> None:
    for folder in (".git/objects", "sub/.git", "sub/.stringsh", ".stringsh", ".~stringsh-tmp", "deep/a/b", "docs"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    for rel in (".git/objects/x", ".git/HEAD", "sub/.git/config", "sub/.stringsh/kept.txt", ".stringsh/state.txt",
                ".~stringsh-tmp/x", ".~stringsh-file", "sub/.~stringsh-file", "deep/a/b/found.txt", "docs/a.md",
                ".hidden.txt", "ignored.log"):
        (root / rel).write_text(f"needle in {rel}\n")
    (root / "worktree").mkdir()
    (root / "worktree" / ".git").write_text("gitdir: needle\n")  # a `.git` file is walked, only the folder is not
    (root / ".gitignore").write_text("*.log\n")
    (root / "edge.txt").write_bytes(b"x" * (LIMIT - 7) + b"needle\n")  # exactly the read limit: searched
    (root / "over.txt").write_bytes(b"x" * (LIMIT - 6) + b"needle\n")  # one byte over: skipped and counted
    (root / "docs" / "linked.md").write_text("needle linked\n")
    os.link(root / "docs" / "linked.md", root / "docs" / "hard.md")  # hard-linked: refused by the walk
    os.symlink("../deep/a/b/found.txt", root / "docs" / "alias.txt")  # file symlink: rg's walk skips it
    os.symlink("deep", root / "deeplink")  # folder symlink: neither walk enters it
    (root / "sub" / "plain.txt").write_text("no match\n")
    with open(os.fsencode(root / "sub") + b"/caf\xe9.txt", "wb") as named:  # a name that is not UTF-8
        named.write(b"needle in a latin-1 name\n")
    os.mkdir(os.fsencode(root) + b"/dossier-\xe9")  # so is a folder's
    with open(os.fsencode(root) + b"/dossier-\xe9/x.txt", "wb") as named:
        named.write(b"needle in a latin-1 folder\n")


def comparable(result: GrepResult) -> tuple:
    return (result.lines, result.matches, result.files, result.truncated, result.skipped_too_large_files,
            result.skipped_non_utf8_files, result.traversal._replace(elapsed_ms=0))


def workspace(root: Path, **limits: int) -> Workspace:
    policy = Policy.default(root)
    return Workspace(root, policy._replace(limits=policy.limits._replace(max_read_bytes=LIMIT, **limits)))


@pytest.mark.needs("rg")
@pytest.mark.parametrize("request_kw", [
    dict(query="needle"), dict(query="NEEDLE", ignore_case=True), dict(query=r"needle\s\w+", regex=True),
    dict(query="needle", path="docs"), dict(query="needle", path="sub"), dict(query="needle", path="deep/a"),
    dict(query="needle", max_results=3), dict(query="needle", glob="*.txt"),
], ids=lambda kw: str(sorted(kw.items())))
def test_the_engines_agree_where_rg_could_see_the_tree_differently(tmp_path: Path, request_kw: dict) -> None:
    corpus(tmp_path)
    ws = workspace(tmp_path)
    try:
        for stats in (False, True):
            with_rg = ws.grep(engine="rg", stats=stats, **request_kw)
            python = ws.grep(engine="python", stats=stats, **request_kw)
            assert (with_rg.engine, python.engine) == ("rg", "python")
            assert comparable(with_rg) == comparable(python), stats
    finally:
        ws.close()


@pytest.mark.needs("rg")
def test_what_the_rg_engine_must_not_show_and_must_not_miss(tmp_path: Path) -> None:
    corpus(tmp_path)
    ws = workspace(tmp_path)
    try:
        result = ws.grep("needle", engine="rg")
    finally:
        ws.close()
    shown = {line.path for line in result.lines}
    assert shown == {".hidden.txt", "deep/a/b/found.txt", "docs/a.md", "edge.txt",  # not docs/alias.txt: a symlink
                     "dossier-\udce9/x.txt", "sub/.stringsh/kept.txt", "sub/caf\udce9.txt", "worktree/.git"}
    assert (result.skipped_too_large_files, tuple(result.traversal)[:5]) == (0, (0, 0, 0, 0, 0))  # not counted
    ws = workspace(tmp_path)
    try:
        counted = ws.grep("needle", engine="rg", stats=True)
    finally:
        ws.close()
    assert counted.lines == result.lines
    assert counted.skipped_too_large_files == 1  # over.txt
    assert counted.traversal.skipped_walk_errors == 2  # the two names of the hard-linked file


@pytest.mark.needs("rg")
@pytest.mark.parametrize("limits", [dict(max_walk_files=4), dict(max_walk_entries=6)], ids=str)
def test_a_walk_stopped_at_a_limit_gives_rg_only_the_files_it_walked(tmp_path: Path, limits: dict) -> None:
    """The policy's walk limits bound the counted walk of --stats; without it, neither engine counts entries, and
    time and max_results are the bounds (docs/file-operations.md)."""
    corpus(tmp_path)
    ws = workspace(tmp_path, **limits)
    try:
        with_rg = ws.grep("needle", engine="rg", stats=True)
        python = ws.grep("needle", engine="python", stats=True)
        uncounted = [ws.grep("needle", engine=engine) for engine in ("rg", "python")]
    finally:
        ws.close()
    assert with_rg.traversal.scan_limit_reached
    assert comparable(with_rg) == comparable(python)
    assert comparable(uncounted[0]) == comparable(uncounted[1])
    assert not uncounted[0].traversal.scan_limit_reached and uncounted[0].files == 8
