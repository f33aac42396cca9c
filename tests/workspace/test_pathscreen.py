"""The screen of a whole listing (ops/pathscreen.py) lets through unchecked only paths every one-by-one check would
pass unchanged; path order (globfirst.by_path, FirstByPath) is `rg --sort path`'s whatever the names hold; and a
folder the link count says holds no folder is not listed by rg's `.gitignore` check (ignorecheck.Leaves)."""

from __future__ import annotations

import os
import random
from pathlib import Path

from stringsh.workspace import Policy, Workspace
from stringsh.workspace.ops.globfirst import PATH_KEY, FirstByPath, by_path
from stringsh.workspace.ops.ignorecheck import Leaves
from stringsh.workspace.ops.pathscreen import PathScreen
from stringsh.workspace.ops.rgwalk import Visible
from stringsh.workspace.policy import Secrets

TOKEN = "ghp_" + "a" * 36
#: Each path a one-by-one check hides or masks (a secret, a folder of one, `.git/`, engine state, a temp file, a
#: name masking changes), in some case or other: every one is a suspect.
HIDDEN_OR_MASKED = [".env", "a/.ENV", "A/.Env.Local/x.txt", "KEYS/X.PEM", "x/.git/config", ".stringsh/j",
                    "a/.~stringsh-tmp", f"{TOKEN}.txt", f"d/{TOKEN}/x", "AKIAIOSFODNN7EXAMPLE.md", "id_RSA",
                    "deep/.aws/credentials", "k/KubeConfig.yaml", ".ssh/config", "t/prod.TFVARS"]
#: Paths every check passes as they are, and that hold none of the screen's strings.
PLAIN = ["src/main.py", "docs/readme.md", "pkg000/mod1/m12.py", "a b/c-d.txt", "caf\udce9.txt"]


def test_every_path_a_check_would_hide_or_mask_is_a_suspect(tmp_path: Path) -> None:
    ws = Workspace(tmp_path, Policy.default(tmp_path))
    try:
        visible, masked = Visible(ws), ws.redactor
        assert [rel for rel in HIDDEN_OR_MASKED if visible(rel) and masked(rel) == rel] == []
        assert [rel for rel in PLAIN if not visible(rel) or masked(rel) != rel] == []
        screen = PathScreen(ws)
        assert screen.suspects("\0".join(PLAIN + HIDDEN_OR_MASKED)) == set(HIDDEN_OR_MASKED)
        assert screen.suspects("\0".join(PLAIN)) == set()
        # a literal held at a name's start (`.env`) is looked for there alone: first, after a NUL or a `/`
        assert screen.suspects(".env\0x.envy/a.txt\0b/.Env/c\0.stringsh") == {".env", "b/.Env/c", ".stringsh"}
        assert screen.suspects("x/\u0130.txt\0src/main.py") is None  # İ lowers to two characters
        # a string is searched for only where the listing holds each of its characters (upper case too, for the
        # lowered ones): each path alone among plain ones, ASCII or not, is found by the characters it brings
        ascii_plain = [rel for rel in PLAIN if rel.isascii()]
        for rel in HIDDEN_OR_MASKED:
            for plain in ([], ascii_plain, PLAIN):
                assert screen.suspects("\0".join([*plain, rel])) == {rel}, (rel, plain)
    finally:
        ws.close()


def test_a_policy_the_screen_cannot_read_makes_every_path_a_suspect(tmp_path: Path) -> None:
    policy = Policy.default(tmp_path)
    for secrets in (Secrets(redact_regexes=("internal-[0-9]{6}",)), Secrets(deny_globs=("*",))):
        ws = Workspace(tmp_path, policy._replace(secrets=secrets))
        try:
            assert PathScreen(ws).suspects("\0".join(PLAIN)) is None
        finally:
            ws.close()


def test_path_order_is_folder_by_folder_whatever_the_names_hold() -> None:
    names = ["a.txt", "a-b/x", "a/z", "a/b/y", "B", "\u00e9", "a/b.txt", "a b", "a\1b", "a/\1", "caf\udce9", "a/b/"]
    expected = sorted(names, key=PATH_KEY)
    assert expected[:5] == ["B", "a/\1", "a/b/", "a/b/y", "a/b.txt"]
    assert list(by_path(names)) == expected
    plain = [name for name in names if "\1" not in name]
    assert list(by_path(plain)) == sorted(plain, key=PATH_KEY)
    assert list(by_path([])) == []


def test_the_first_by_path_of_batches_are_those_of_all_of_them_whatever_the_names_hold() -> None:
    """FirstByPath keeps, of each batch, only the paths before the last kept so far: what it keeps and lists is the
    path order of everything added, for any `keep`, whatever order the batches come in, and when a later batch
    holds a name with a \\x01 (its keys are then made with NUL)."""
    names = [f"{folder}/{name}" for folder in ("a", "a-b", "a/b", "b", "\u00e9", "a.d") for name in
             ("x", "y.txt", "x-y", "z")] + ["a.txt", "B", "a b", "caf\udce9"]
    shuffled = random.Random(7).sample(names, len(names))
    with_one = [*shuffled[:13], "a/\1", "a\1b", *shuffled[13:]]
    for listed in (shuffled, with_one):
        expected = sorted(listed, key=PATH_KEY)
        for keep in (0, 1, 3, 10, len(listed), len(listed) + 5):
            for size in (1, 4, 9):
                first = FirstByPath(keep)
                for at in range(0, len(listed), size):
                    first.add(listed[at:at + size])
                assert first.total == len(listed)
                assert list(first.ordered()) == expected, (keep, size)
                assert len(first.kept) == min(keep, len(listed))


def test_a_folder_whose_link_count_says_it_holds_none_is_known_once_the_count_is_trusted(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "c").mkdir()
    leaves = Leaves()
    leaf, root = os.stat(tmp_path / "c"), os.stat(tmp_path)
    assert not leaves.known(leaf)  # nothing listed yet: the count is not trusted
    if root.st_nlink == 4:  # this file system keeps the count (two and its two folders)
        leaves.learn(root, 2)
        assert leaves.known(leaf) and not leaves.known(os.stat(tmp_path / "a"))
    leaves.learn(os.stat(tmp_path / "a"), 0)  # a count that does not add up turns it off for good
    assert not leaves.known(leaf)
    leaves.learn(root, 2)
    assert not leaves.known(leaf)


def test_the_path_masker_masks_as_the_redactor_does(tmp_path: Path) -> None:
    policy = Policy.default(tmp_path)
    for secrets in (Secrets(), Secrets(redact_regexes=("internal-[0-9]{6}",), replacement="<s>")):
        ws = Workspace(tmp_path, policy._replace(secrets=secrets))
        try:
            masker = ws.redactor.path_masker()
            for path in [*PLAIN, *HIDDEN_OR_MASKED, "internal-123456.txt", "gh", "sk-1"]:
                assert masker(path) == ws.redactor(path), path
            assert masker(f"{TOKEN}.txt") == f"{secrets.replacement}.txt"
        finally:
            ws.close()


def test_a_listed_file_changed_since_rg_named_it_is_refused_and_the_next_in_order_shown(tmp_path: Path) -> None:
    from stringsh.workspace.ops.rgwalk import Folders

    root, outside = tmp_path / "root", tmp_path / "outside"
    (root / "b").mkdir(parents=True)
    (outside / "d").mkdir(parents=True)
    (outside / "d" / "x.txt").write_text("secret\n")
    for rel in ("a.txt", "b/c.txt", "e.txt"):
        (root / rel).write_text("x\n")
    os.symlink(outside / "d", root / "d")  # a folder swapped for a link since rg named d/x.txt
    os.symlink(outside / "d" / "x.txt", root / "c.txt")  # a file swapped for a link
    ws = Workspace(root, Policy.default(root))
    folders = Folders(ws)
    try:
        listed = ["e.txt", "d/x.txt", "gone.txt", "c.txt", "b/c.txt", "a.txt"]

        def first(limit: int) -> tuple[list[str], int]:
            """The first `limit` shown of `listed`, given to FirstByPath in two batches, and the refused."""
            kept = FirstByPath(limit)
            kept.add(listed[:2])
            kept.add_text("\0".join(listed[2:]))
            shown, refused = kept.shown(limit, folders)
            assert kept.total == len(listed)
            return shown, refused

        # three kept; c.txt and d/x.txt refused: the next in order are found among all the batches
        assert first(3) == (["a.txt", "b/c.txt", "e.txt"], 2)  # gone.txt: not reached
        assert first(1) == (["a.txt"], 0)
        assert first(6) == (["a.txt", "b/c.txt", "e.txt"], 3)
    finally:
        folders.close()
        ws.close()


def test_which_names_are_regular_files_is_the_same_from_the_listing_as_from_a_stat_each(tmp_path: Path) -> None:
    """globfirst.regular_in reads a folder's listing once many of its files are asked, and only so far: what a name
    is not settled by the entries read is statted."""
    from stringsh.workspace.ops.globfirst import LIST_FROM, READ_PER_NAME, regular_in

    files = [f"f{index:03}.txt" for index in range(LIST_FROM * READ_PER_NAME * 3)]
    for name in files:
        (tmp_path / name).write_text("x\n")
    (tmp_path / "sub").mkdir()
    os.mkfifo(tmp_path / "fifo")
    os.symlink("f000.txt", tmp_path / "link.txt")
    others = ["sub", "fifo", "link.txt", "gone.txt"]
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for asked in (files[:2] + others, files + others, files[::7] + others, files[-LIST_FROM:] + others):
            assert regular_in(fd, asked) == set(asked) & set(files), len(asked)
    finally:
        os.close(fd)
