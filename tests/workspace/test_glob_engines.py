"""glob gives identical results with `rg --files` walking and with the Python walk, where rg's view of the tree could
differ from the confined walk's (the corpus of test_grep_rg_walk.py: `.git/` and `.stringsh/` folders, temp files,
hard links, file and folder symlinks, ignored files, names that are not UTF-8); a `**/NAME` pattern rg prefilters
with `--glob NAME` lists what wcmatch's rules list; and the checks of what rg returns hold on their own."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from stringsh.workspace.ops.glob import GlobResult
from stringsh.workspace.ops.rgwalk import Folders, Listing, Visible, walk_order

from .test_grep_rg_walk import corpus, workspace

PATTERNS = ["**", "**/*.txt", "**/*.{txt,md}", "*", "docs/*", "**/x.txt", "**/.*", "**/*.TXT", "**/*x*",
            "**/.git", "**/caf*"]


def comparable(result: GlobResult) -> tuple:
    return result.matches, result.truncated, result.total, result.traversal._replace(elapsed_ms=0), result.path


def same_time(root: Path) -> None:
    """One modification time for every file: the order is then by path, and ties are part of the comparison."""
    for folder, _, names in os.walk(os.fsencode(root)):
        for name in names:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                os.utime(path, ns=(10**18, 10**18))


@pytest.mark.needs("rg")
@pytest.mark.parametrize("path", [".", "sub", "deep/a"])
def test_rg_files_and_the_python_walk_list_the_same(tmp_path: Path, path: str) -> None:
    corpus(tmp_path)
    (tmp_path / "sub" / "x.txt").write_text("x\n")
    (tmp_path / "sub" / ".x.txt").write_text("x\n")
    same_time(tmp_path)
    ws = workspace(tmp_path)
    try:
        for pattern in PATTERNS:
            for order in ("path", "mtime"):
                with_rg, python = (ws.glob(pattern, path, engine=engine, sort=order) for engine in ("rg", "python"))
                assert (with_rg.engine, python.engine) == ("rg", "python")
                assert comparable(with_rg) == comparable(python), (pattern, order)
        for order in ("path", "mtime"):
            few = [ws.glob("**", path, engine=engine, max_results=2, sort=order) for engine in ("rg", "python")]
            assert comparable(few[0]) == comparable(few[1])
        counted = ws.glob("**", path, engine="rg", stats=True)  # --stats is the counted walk, whatever the engine
        assert counted.engine == "python" and counted.traversal.counted
        assert counted.matches == ws.glob("**", path, engine="rg").matches
    finally:
        ws.close()


@pytest.mark.needs("rg")
def test_what_rg_files_must_not_list(tmp_path: Path) -> None:
    corpus(tmp_path)
    ws = workspace(tmp_path)
    try:
        listed = {match.rel for match in ws.glob("**", engine="rg").matches}
    finally:
        ws.close()
    assert listed == {".gitignore", ".hidden.txt", "deep/a/b/found.txt", "docs/a.md", "docs/hard.md",
                      "docs/linked.md", "dossier-\udce9/x.txt", "edge.txt", "over.txt", "sub/.stringsh/kept.txt",
                      "sub/caf\udce9.txt", "sub/plain.txt", "worktree/.git"}  # a hard link is listed, not read


def test_the_check_of_rgs_paths_is_the_walks(tmp_path: Path) -> None:
    """Visible hides what the walk never yields, whoever walked; walk_order is the walk's order."""
    ws = workspace(tmp_path)
    try:
        visible = Visible(ws)
        hidden = [".stringsh/state.txt", ".git/HEAD", "a/.git/config", ".~stringsh-x", "a/.~stringsh-d/f",
                  ".env", "a/.ssh/config", "keys/x.pem", ".aws/credentials", "a/.env.local/x"]
        shown = ["sub/.stringsh/kept.txt", "worktree/.git", "a/.env.example", "a/b/c.txt", "x.pub", "git/x"]
        assert [rel for rel in hidden if visible(rel)] == []
        assert [rel for rel in shown if not visible(rel)] == []
    finally:
        ws.close()
    paths = ["b/z.txt", "a.txt", "b/a/x.txt", "b.txt", "a/b.txt", "b/y.txt"]
    assert sorted(paths, key=walk_order) == ["a.txt", "b.txt", "a/b.txt", "b/y.txt", "b/z.txt", "b/a/x.txt"]


def test_a_folder_reached_through_a_symlink_is_not_opened(tmp_path: Path) -> None:
    """A path rg printed whose folder is now a symlink (swapped since rg walked) cannot be opened, and its file
    never shown."""
    outside = tmp_path / "outside"
    (outside / "d").mkdir(parents=True)
    (tmp_path / "root").mkdir()
    os.symlink(outside / "d", tmp_path / "root" / "d")
    ws = workspace(tmp_path / "root")
    folders = Folders(ws)
    try:
        with pytest.raises(OSError):
            folders.open("d")
    finally:
        folders.close()
        ws.close()


@pytest.mark.needs("rg")
def test_a_listing_past_its_deadline_says_so(tmp_path: Path) -> None:
    from stringsh.workspace.ops.rgsearch import find_rg
    from stringsh.workspace.ops.rgwalk import command

    (tmp_path / "a.txt").write_text("x\n")
    ws = workspace(tmp_path)
    try:
        rg = find_rg()
        assert rg is not None
        late = Listing(command(rg, ".", "--files"), ws, time.monotonic() - 1)
        assert [path for batch in late.batches() for path in batch] == [] and late.late
        on_time = Listing(command(rg, ".", "--files"), ws, time.monotonic() + 60)
        assert [path for batch in on_time.batches() for path in batch] == ["a.txt"]
        assert not (on_time.late or on_time.failed)
        refused = Listing(command(rg, ".", "--regexp", "(?<=x)"), ws, time.monotonic() + 60)
        assert [path for batch in refused.batches() for path in batch] == [] and refused.failed
    finally:
        ws.close()


GITIGNORES = {
    ".gitignore": "# a comment\n*.log\n!keep.log\nbuild/\n/rooted.txt\n**/deep/*.tmp\ndoc/**/*.md\n\\#hash\n"
                  "a?c.txt\n[ab].dat\ntrailing.txt   \nnested/\n!nested/\n",
    "sub/.gitignore": "!*.log\nlocal/\n*.tmp\n!/only-here.tmp\n",
    "sub/inner/.gitignore": "keep.log\n",
}
FILES = ["a.log", "keep.log", "build/x.txt", "sub/build/y.txt", "rooted.txt", "sub/rooted.txt", "x/deep/a.tmp",
         "deep/b.tmp", "doc/a.md", "doc/z/b.md", "docs/c.md", "#hash", "abc.txt", "ac.txt", "a.dat", "c.dat",
         "trailing.txt", "nested/n.txt", "sub/s.log", "sub/inner/keep.log", "sub/inner/other.log",
         "sub/local/l.txt", "sub/t.tmp", "sub/only-here.tmp", "sub/inner/only-here.tmp", "plain.txt"]


@pytest.mark.needs("rg")
@pytest.mark.parametrize("path", [".", "sub"])
def test_gitignore_files_are_read_alike_by_rg_and_the_walk(tmp_path: Path, path: str) -> None:
    """rg's `.gitignore` rules and the walk's (pathspec's GitIgnoreSpec) agree on the features a `.gitignore`
    uses: negation at every level, folder rules, rooted and `**` patterns, escapes, classes, trailing spaces."""
    for rel, text in GITIGNORES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    for rel in FILES:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("hit\n")
    same_time(tmp_path)
    ws = workspace(tmp_path)
    try:
        listed = [ws.glob("**", path, engine=engine) for engine in ("rg", "python")]
        found = [ws.grep("hit", path, engine=engine) for engine in ("rg", "python")]
    finally:
        ws.close()
    assert comparable(listed[0]) == comparable(listed[1])
    assert found[0].lines == found[1].lines
    assert len(listed[1].matches) > 5


@pytest.mark.needs("rg")
@pytest.mark.parametrize("kind", ["link out", "link in", "fifo"])
def test_a_gitignore_that_is_not_a_regular_file_is_never_read_by_rg(tmp_path: Path, kind: str) -> None:
    """rg opens a folder's `.gitignore` by name: through a link it would read a file outside the workspace as rules
    (which files it hid would tell what the file holds), from a FIFO it would wait. The walk reads neither; so when
    a folder holds one, rg's answer is not taken and the Python engine answers, for grep and glob alike."""
    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "sub").mkdir(parents=True)
    outside.mkdir()
    (outside / "rules").write_text("a.txt\n")  # the outside file: were it read, a.txt would be hidden
    (root / "sub" / "notes.txt").write_text("a.txt\n")
    for name in ("a.txt", "b.txt", "sub/a.txt"):
        (root / name).write_text("hit\n")
    if kind == "fifo":
        os.mkfifo(root / "sub" / ".gitignore")
    else:
        os.symlink(outside / "rules" if kind == "link out" else "notes.txt", root / "sub" / ".gitignore")
    ws = workspace(root)
    try:
        listed = ws.glob("**", engine="rg")
        found = ws.grep("hit", engine="rg")
        python = ws.glob("**", engine="python"), ws.grep("hit", engine="python")
        if kind == "fifo":  # rg, waiting on the FIFO, is stopped as soon as the check sees it (not at the deadline)
            from stringsh.workspace.ops.ignorecheck import IgnoreCheck
            from stringsh.workspace.ops.rgsearch import find_rg
            from stringsh.workspace.ops.rgwalk import command
            from stringsh.workspace.ops.walk import start_at

            listing = Listing(command(find_rg() or "rg", ".", "--files"), ws, time.monotonic() + 120)
            start = start_at(ws, ".")
            check = IgnoreCheck(ws, start, listing)
            os.close(start.fd)
            for _ in listing.batches():
                pass
            assert not check.passed() and listing.cancelled and not listing.late
    finally:
        ws.close()
    assert (listed.engine, found.engine) == ("python", "python")
    assert [m.rel for m in listed.matches] == [m.rel for m in python[0].matches]
    assert {m.rel for m in listed.matches} == {"a.txt", "b.txt", "sub/a.txt", "sub/notes.txt"}
    assert [line.path for line in found.lines] == [line.path for line in python[1].lines] == [
        "a.txt", "b.txt", "sub/a.txt"]
