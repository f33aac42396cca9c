"""The file operations (docs/file-operations.md), operation by operation: stat, mkdir, move, copy_file, delete. Every
mutation is one journalled change: undo brings the tree back byte for byte (files, modes, folders, links), hashed
before and after; the refusals change nothing."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from stringsh.errors import StringError
from stringsh.workspace import Workspace


def tree_hash(root: Path) -> dict[str, str]:
    """Every entry under root except `.stringsh`: kind, mode and content (or link target) hashed, links unfollowed."""
    seen: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = [d for d in dirnames if not (Path(dirpath) == root and d == ".stringsh")]
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            st = path.lstat()
            if path.is_symlink():
                body = b"link:" + os.readlink(path).encode()
            elif path.is_dir():
                body = b"dir"
            else:
                body = path.read_bytes()
            seen[str(path.relative_to(root))] = f"{st.st_mode:o}:{hashlib.sha256(body).hexdigest()}"
    return seen


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A root with a folder of files (odd modes, CRLF, binary, an empty folder, a relative and an outside link)."""
    root = tmp_path / "root"
    (root / "d" / "e" / "empty").mkdir(parents=True)
    (root / "d" / "a.txt").write_bytes(b"one\r\ntwo\r\n")
    (root / "d" / "e" / "run.sh").write_bytes(b"#!/bin/sh\necho hi\n")
    (root / "d" / "e" / "blob.bin").write_bytes(bytes(range(256)) * 4)
    os.chmod(root / "d" / "e" / "run.sh", 0o751)
    os.chmod(root / "d" / "e", 0o750)
    os.chmod(root / "d" / "e" / "empty", 0o700)
    os.symlink("../a.txt", root / "d" / "e" / "rel")
    os.symlink(str(tmp_path / "outside"), root / "d" / "out")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "keep.txt").write_text("outside\n")
    (root / "top.md").write_text("top\n")
    return root


@pytest.fixture
def engine(tree: Path):
    workspace = Workspace(tree)
    yield workspace
    workspace.close()


def refused(call, code: str) -> StringError:  # type: ignore[no-untyped-def]
    with pytest.raises(StringError) as info:
        call()
    assert info.value.code == code, info.value
    return info.value


# -- undo byte for byte -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("operation", [
    lambda ws: ws.move("d", "z/q", create_parents=True),
    lambda ws: ws.move("d", "z"),
    lambda ws: ws.move("top.md", "d/e/"),
    lambda ws: ws.move("top.md", "d/a.txt", overwrite=True),
    lambda ws: ws.move("d/e/rel", "rel2"),
    lambda ws: ws.delete("d", recursive=True),
    lambda ws: ws.delete("d/e/run.sh"),
    lambda ws: ws.delete("d/out"),
    lambda ws: ws.mkdir("n/m/o", create_parents=True),
    lambda ws: ws.copy_file("d/e/run.sh", "x/run.sh", create_parents=True),
    lambda ws: ws.copy_file("top.md", "d/a.txt", overwrite=True),
])
def test_undo_of_every_mutation_is_byte_identical(tree: Path, engine: Workspace, operation) -> None:  # type: ignore[no-untyped-def]
    before = tree_hash(tree)
    outside = tree_hash(tree.parent / "outside")
    operation(engine)
    assert tree_hash(tree) != before
    engine.undo("main")
    assert tree_hash(tree) == before
    assert tree_hash(tree.parent / "outside") == outside
    assert engine.journal.pending() == []


def test_move_of_a_folder_keeps_modes_and_links(tree: Path, engine: Workspace) -> None:
    outcome = engine.move("d", "z")
    assert (outcome.source, outcome.dest, outcome.kind, outcome.files) == ("d", "z", "dir", 3)
    assert not (tree / "d").exists()
    assert (tree / "z" / "e" / "run.sh").stat().st_mode & 0o777 == 0o751
    assert (tree / "z" / "e").stat().st_mode & 0o777 == 0o750
    assert (tree / "z" / "e" / "empty").is_dir()
    assert os.readlink(tree / "z" / "e" / "rel") == "../a.txt"
    assert (tree / "z" / "a.txt").read_bytes() == b"one\r\ntwo\r\n"


def test_delete_unlinks_a_symlink_and_never_its_target(tree: Path, engine: Workspace) -> None:
    outcome = engine.delete("d/out")
    assert (outcome.kind, outcome.deleted) == ("symlink", True)
    assert (tree.parent / "outside" / "keep.txt").read_text() == "outside\n"
    engine.delete("d", recursive=True)  # a link to a folder inside is unlinked, the folder it names kept
    assert (tree.parent / "outside" / "keep.txt").exists()


# -- the contracts ----------------------------------------------------------------------------------------------


def test_stat_types(engine: Workspace) -> None:
    info = engine.stat("d/a.txt")
    assert info is not None and (info.rel, info.size, info.is_dir) == ("d/a.txt", 10, False)
    assert engine.stat("d/e") is not None and engine.stat("d/e").is_dir  # type: ignore[union-attr]
    assert engine.stat("nope") is None


def test_mkdir_contract(tree: Path, engine: Workspace) -> None:
    refused(lambda: engine.mkdir("p/q"), "NOT_FOUND")
    assert engine.mkdir("p/q", create_parents=True).made == ("p", "p/q")
    refused(lambda: engine.mkdir("p/q"), "CONFLICT")
    assert engine.mkdir("p/q", ignore_existing=True).created is False
    refused(lambda: engine.mkdir("top.md", ignore_existing=True), "CONFLICT")
    refused(lambda: engine.mkdir("."), "INVALID_TARGET")
    refused(lambda: engine.mkdir(str(tree)), "INVALID_TARGET")


def test_delete_contract(tree: Path, engine: Workspace) -> None:
    refused(lambda: engine.delete("d"), "INVALID_TARGET")  # recursive=false refuses a folder
    refused(lambda: engine.delete("gone"), "NOT_FOUND")
    missing = engine.delete("gone", ignore_missing=True)
    assert (missing.deleted, missing.kind) == (False, "missing")
    refused(lambda: engine.delete(".", recursive=True), "INVALID_TARGET")
    assert engine.delete("top.md").kind == "file"


def test_move_contract(tree: Path, engine: Workspace) -> None:
    before = tree_hash(tree)
    refused(lambda: engine.move("top.md", "top.md"), "INVALID_TARGET")
    refused(lambda: engine.move("d", "d/e/inside"), "INVALID_TARGET")
    refused(lambda: engine.move("top.md", "d/a.txt"), "CONFLICT")
    refused(lambda: engine.move("d/e", "top.md", overwrite=True), "INVALID_TARGET")
    refused(lambda: engine.move("top.md", "new/place.md"), "NOT_FOUND")
    refused(lambda: engine.move("nope", "x"), "NOT_FOUND")
    assert tree_hash(tree) == before
    assert engine.move("top.md", "new/place.md", create_parents=True).dest == "new/place.md"


def test_copy_contract(tree: Path, engine: Workspace) -> None:
    refused(lambda: engine.copy_file("d", "x"), "INVALID_TARGET")  # source must be a regular file
    refused(lambda: engine.copy_file("d/e/rel", "x"), "INVALID_TARGET")
    refused(lambda: engine.copy_file("top.md", "d/a.txt"), "CONFLICT")
    outcome = engine.copy_file("d/e/run.sh", "copy.sh")
    assert (outcome.size, outcome.replaced) == (18, False)
    assert (tree / "copy.sh").stat().st_mode & 0o777 == 0o751



def test_copy_folder_one_change_set_exact_copy_undo_removes_it(tree: Path, engine: Workspace) -> None:
    os.unlink(tree / "d" / "e" / "rel")
    os.unlink(tree / "d" / "out")
    before = tree_hash(tree)
    planned = engine.copy_folder("d", "z/copy", create_parents=True, plan=True)
    assert planned == ("d", "z/copy", ("z/copy/a.txt", "z/copy/e/blob.bin", "z/copy/e/run.sh"), 1052, None)
    assert tree_hash(tree) == before and engine.history() == []
    outcome = engine.copy_folder("d", "z/copy", create_parents=True)
    assert outcome == planned._replace(change_id=1)
    after = tree_hash(tree)
    assert {k[len("z/copy/"):]: v for k, v in after.items() if k.startswith("z/copy/")} == {
        k[len("d/"):]: v for k, v in before.items() if k.startswith("d/")}  # bytes, modes, the empty folder
    assert (tree / "z" / "copy" / "e" / "run.sh").stat().st_mtime_ns == (tree / "d" / "e" / "run.sh").stat().st_mtime_ns
    assert len(engine.history()) == 1
    engine.undo("main")
    assert tree_hash(tree) == before


def test_copy_folder_refusals_change_nothing(tree: Path, engine: Workspace) -> None:
    before = tree_hash(tree)
    error = refused(lambda: engine.copy_folder("d", "z"), "INVALID_TARGET")  # a link inside: never copied
    assert (error.message, error.hint) == ("d holds d/e/rel, a symlink; only folders of plain files and folders are "
                                           "copied", "Nothing was changed; copy the files around the link one by one.")
    os.unlink(tree / "d" / "e" / "rel")
    os.unlink(tree / "d" / "out")
    before = tree_hash(tree)
    refused(lambda: engine.copy_folder("top.md", "z"), "INVALID_TARGET")
    refused(lambda: engine.copy_folder("nope", "z"), "NOT_FOUND")
    refused(lambda: engine.copy_folder("d", "z/q"), "NOT_FOUND")  # no parents without create_parents
    refused(lambda: engine.copy_folder("d", "d/e/again"), "INVALID_TARGET")
    error = refused(lambda: engine.copy_folder("d/e", "d"), "INVALID_TARGET")  # into d: d/e itself
    assert error.message == "Source and destination are the same: d/e"
    error = refused(lambda: engine.copy_folder("d", "top.md"), "CONFLICT")
    assert error.message == "Destination exists: top.md; a folder is copied to a new path only"
    refused(lambda: engine.copy_folder("d", ".git/hooks", create_parents=True), "NOT_PERMITTED")
    refused(lambda: engine.copy_folder("d", ".stringsh/x", create_parents=True), "NOT_PERMITTED")
    refused(lambda: engine.copy_folder("d", "../escaped"), "INVALID_PATH")
    (tree / "d" / "e" / ".env").write_text("TOKEN=1\n")
    refused(lambda: engine.copy_folder("d", "z"), "SECRET_DENIED")
    os.unlink(tree / "d" / "e" / ".env")
    assert tree_hash(tree) == before and engine.history() == []


def test_copy_folder_over_the_file_budget_is_refused_before_reading(tree: Path) -> None:
    from stringsh.workspace.policy import Policy

    policy = Policy.default(tree)
    engine = Workspace(tree, policy._replace(changes=policy.changes._replace(max_files=2)))
    try:
        os.unlink(tree / "d" / "e" / "rel")
        os.unlink(tree / "d" / "out")
        error = refused(lambda: engine.copy_folder("d", "z"), "BUDGET_EXCEEDED")
        assert error.message == "d holds 3 files; a change may touch at most 2."
        assert not (tree / "z").exists()
    finally:
        engine.close()

# -- attacks (docs/hazards.md) ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("call", "code"), [
    (lambda ws: ws.move("top.md", ".env"), "SECRET_DENIED"),
    (lambda ws: ws.copy_file("top.md", ".env"), "SECRET_DENIED"),
    (lambda ws: ws.move("top.md", ".git/hooks/pre-commit", create_parents=True), "NOT_PERMITTED"),
    (lambda ws: ws.copy_file("top.md", ".git/hooks/pre-commit", create_parents=True), "NOT_PERMITTED"),
    (lambda ws: ws.mkdir(".git/hooks", create_parents=True), "NOT_PERMITTED"),
    (lambda ws: ws.mkdir(".stringsh/x", create_parents=True), "NOT_PERMITTED"),
    (lambda ws: ws.delete(".stringsh", recursive=True), "NOT_PERMITTED"),
    (lambda ws: ws.move("d/out/keep.txt", "stolen.txt"), "INVALID_PATH"),
    (lambda ws: ws.copy_file("d/out/keep.txt", "stolen.txt"), "INVALID_PATH"),
    (lambda ws: ws.delete("d/out/keep.txt"), "INVALID_PATH"),
    (lambda ws: ws.move("top.md", "d/out/planted.md"), "INVALID_PATH"),
    (lambda ws: ws.move("top.md", "../escaped.md"), "INVALID_PATH"),
    (lambda ws: ws.mkdir("../escaped"), "INVALID_PATH"),
    (lambda ws: ws.move("top.md", "a\nb.md"), "INVALID_PATH"),
    (lambda ws: ws.mkdir("a\nb"), "INVALID_PATH"),
    (lambda ws: ws.delete("/"), "FILE_NOT_ALLOWED"),
])
def test_attacks_change_nothing(tree: Path, engine: Workspace, call, code: str) -> None:  # type: ignore[no-untyped-def]
    (tree / ".env").write_text("TOKEN=1\n")
    (tree / ".git" / "hooks").mkdir(parents=True)
    before, outside = tree_hash(tree), tree_hash(tree.parent / "outside")
    refused(lambda: call(engine), code)
    assert tree_hash(tree) == before
    assert tree_hash(tree.parent / "outside") == outside
    assert sorted(p.name for p in tree.parent.iterdir()) == ["outside", "root"]


def test_a_folder_holding_a_secret_is_neither_moved_nor_deleted(tree: Path, engine: Workspace) -> None:
    (tree / "d" / "e" / ".env").write_text("TOKEN=1\n")
    before = tree_hash(tree)
    refused(lambda: engine.move("d", "z"), "SECRET_DENIED")
    refused(lambda: engine.delete("d", recursive=True), "SECRET_DENIED")
    assert tree_hash(tree) == before


def test_a_folder_swapped_for_a_symlink_is_moved_as_the_link(tree: Path, engine: Workspace) -> None:
    """The source looked at when the move runs is what moves: a folder swapped for a link to outside the root
    is moved as that link (the outside stays untouched), never walked."""
    os.rename(tree / "d", tree / "d.real")
    os.symlink(str(tree.parent / "outside"), tree / "d")
    outside = tree_hash(tree.parent / "outside")
    assert engine.move("d", "z").kind == "symlink"
    assert os.readlink(tree / "z") == str(tree.parent / "outside")
    assert tree_hash(tree.parent / "outside") == outside
    engine.undo("main")
    assert os.readlink(tree / "d") == str(tree.parent / "outside")


def test_undo_refuses_when_a_moved_folder_was_filled_since(tree: Path, engine: Workspace) -> None:
    engine.move("d", "z")
    (tree / "z" / "new.txt").write_text("added by hand\n")
    error = refused(lambda: engine.undo("main"), "CONFLICT")
    assert str(error) == "Refusing to undo: z/new.txt was added since change 1, and the folder z would have to go."
    assert (tree / "z" / "new.txt").exists() and not (tree / "d").exists()


# -- limits -----------------------------------------------------------------------------------------------------


def test_a_delete_beyond_the_keep_limit_needs_force(tmp_path: Path) -> None:
    root = tmp_path / "big"
    (root / "data").mkdir(parents=True)
    (root / "stringsh.toml").write_text("[limits]\nmax_read_bytes = 1000\nmax_write_bytes = 1000\n")
    for k in range(3):
        (root / "data" / f"{k}.bin").write_bytes(b"x" * 600)
    workspace = Workspace.load(root)
    try:
        error = refused(lambda: workspace.delete("data", recursive=True), "TOO_LARGE")
        assert str(error) == "data holds 1800 bytes; the change journal keeps at most 1000 for undo."
        assert error.hint == "Nothing was changed; /rm -r --force data deletes it without undo."
        assert len(list((root / "data").iterdir())) == 3
        outcome = workspace.delete("data", recursive=True, force=True)
        assert (outcome.deleted, outcome.change_id) == (True, None)
        assert not (root / "data").exists()
    finally:
        workspace.close()


def test_old_journals_upgrade_and_prune_drops_tree_rows(tree: Path, engine: Workspace) -> None:
    engine.mkdir("p")
    engine.mkdir("q")
    assert engine.prune(keep=1) == 1
    rows = engine.journal.db.execute("SELECT cs FROM tree_ops").fetchall()
    assert rows == [(2,)]


@pytest.mark.parametrize("operation", ["move", "delete"])
def test_a_folder_swapped_for_a_symlink_during_the_operation(tree: Path, engine: Workspace, operation: str,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process swaps `d/e` for a link to a folder elsewhere in the root right after the walk: the files
    reached through the link are never deleted or moved; CONFLICT, nothing changed."""
    from stringsh.workspace.ops import delete, move

    (tree / "other").mkdir()
    for name in ("run.sh", "blob.bin", "rel"):
        (tree / "other" / name).write_text("someone else's\n")
    module = move if operation == "move" else delete
    real_walk = module.walk

    def walk_then_swap(*args, **kwargs):  # type: ignore[no-untyped-def]
        found = real_walk(*args, **kwargs)
        os.rename(tree / "d" / "e", tree / "e.moved-away")
        os.symlink("../other", tree / "d" / "e")
        return found

    monkeypatch.setattr(module, "walk", walk_then_swap)
    run = (lambda: engine.move("d", "z")) if operation == "move" else (lambda: engine.delete("d", recursive=True))
    before_other = tree_hash(tree / "other")
    before = None
    with pytest.raises(StringError) as info:
        before = run()
    assert info.value.code == "CONFLICT" and before is None
    assert tree_hash(tree / "other") == before_other
    assert (tree / "d" / "a.txt").read_bytes() == b"one\r\ntwo\r\n"
    assert not (tree / "z").exists()
    assert engine.journal.pending() == []


def test_a_journal_from_before_tree_ops_upgrades_without_loss(tree: Path) -> None:
    """An older version's journal has no `tree_ops` table: opening it adds the table, its changes stay
    revertable by id, and the new operations journal their folders in it."""
    first = Workspace(tree)
    first.write_text("old.md", "old\n")
    first.journal.db.execute("DROP TABLE tree_ops")
    first.close()
    second = Workspace(tree)
    try:
        assert second.journal.tree(1) == ()
        assert [f.rel for f in second.revert(1).files] == ["old.md"]
        assert not (tree / "old.md").exists()
        second.mkdir("fresh")
        second.undo("main")
        assert not (tree / "fresh").exists()
    finally:
        second.close()


def test_the_change_allow_list_covers_folders_and_links(tmp_path: Path) -> None:
    root = tmp_path / "allow"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "a.md").write_text("a\n")
    os.symlink("docs", root / "ln")
    (root / "stringsh.toml").write_text('[changes]\nallow_globs = ["docs/**"]\n')
    workspace = Workspace.load(root)
    try:
        before = tree_hash(root)
        for call in (lambda: workspace.mkdir("other"), lambda: workspace.delete("ln"),
                     lambda: workspace.move("docs/a.md", "elsewhere.md")):
            assert refused(call, "NOT_PERMITTED").args[0].startswith("Path is not on the policy's change allow-list")
        assert tree_hash(root) == before
        assert workspace.mkdir("docs/new/deeper", create_parents=True).created
        assert workspace.move("docs/new", "docs/renamed").kind == "dir"
    finally:
        workspace.close()
