"""Big previous bytes are kept as blob files beside the journal (blobfiles.py): undone byte for byte, refused when
the file no longer holds them, counted against the keep bound and removed with the last change set naming them."""

from __future__ import annotations

from pathlib import Path

import pytest

from stringsh.errors import StringError
from stringsh.workspace import ChangeSet, Workspace
from stringsh.workspace.blobfiles import BLOB_DIR, FILE_BLOB
from stringsh.workspace.changes import sha256


def big(tag: str) -> bytes:
    return b"".join(f"{tag} line {k:06d}".ljust(63).encode() + b"\n" for k in range(FILE_BLOB // 64 + 1))


def kept(engine: Workspace) -> tuple[list[str], list[str]]:
    """(blob files on disk, blob_files rows)."""
    folder = engine.journal.path.parent / BLOB_DIR
    files = sorted(p.name for p in folder.iterdir()) if folder.exists() else []
    rows = sorted(r[0] for r in engine.journal.db.execute("SELECT sha FROM blob_files"))
    return files, rows


def test_big_previous_bytes_go_to_a_blob_file_and_come_back_exactly(engine: Workspace) -> None:
    target = engine.root / "big.txt"
    old, new = big("old") + b"\r\n\x00tail", big("new")
    target.write_bytes(old)
    change = engine.apply(ChangeSet().write("big.txt", new).write("small.txt", b"small\n"))
    assert kept(engine) == ([sha256(old)], [sha256(old)])
    assert engine.journal.db.execute("SELECT COUNT(*) FROM blobs").fetchone()[0] == 0
    assert engine.journal.depth().bytes == len(old)
    engine.revert(change)
    assert target.read_bytes() == old and not (engine.root / "small.txt").exists()
    assert kept(engine)[1] == sorted([sha256(old), sha256(new)])  # the revert kept what it replaced too


def test_a_blob_file_that_no_longer_holds_the_bytes_is_refused_and_nothing_is_written(engine: Workspace) -> None:
    target = engine.root / "big.txt"
    old = big("old")
    target.write_bytes(old)
    change = engine.apply(ChangeSet().write("big.txt", b"new\n"))
    blob = engine.journal.path.parent / BLOB_DIR / sha256(old)
    lost = "Cannot undo change 1: the journal no longer holds the previous bytes of big.txt."
    blob.write_bytes(old[:-1] + b"X")
    with pytest.raises(StringError) as caught:
        engine.revert(change)
    assert (caught.value.code, caught.value.message) == ("NOT_FOUND", lost)
    assert target.read_bytes() == b"new\n"
    blob.unlink()
    with pytest.raises(StringError) as caught:
        engine.revert(change)
    assert (caught.value.code, caught.value.message) == ("NOT_FOUND", lost)
    assert target.read_bytes() == b"new\n"


def test_pruning_removes_a_blob_file_with_the_last_change_set_naming_it(engine: Workspace) -> None:
    target = engine.root / "big.txt"
    versions = [big(f"v{k}") for k in range(4)]
    target.write_bytes(versions[0])
    for data in versions[1:]:
        engine.apply(ChangeSet().write("big.txt", data))
    assert kept(engine)[0] == sorted(sha256(v) for v in versions[:3])
    assert engine.prune(keep=1) == 2
    assert kept(engine) == ([sha256(versions[2])], [sha256(versions[2])])
    assert engine.journal.depth().bytes == len(versions[2])
    engine.undo("main")
    assert target.read_bytes() == versions[2]


def test_the_same_big_bytes_are_kept_once(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    engine = Workspace(root)
    try:
        old = big("same")
        for name in ("a.txt", "b.txt"):
            (root / name).write_bytes(old)
        engine.apply(ChangeSet().write("a.txt", b"a\n"))
        engine.apply(ChangeSet().write("b.txt", b"b\n"))
        assert kept(engine) == ([sha256(old)], [sha256(old)])
        assert engine.journal.depth().bytes == len(old)
        engine.undo("main")
        engine.undo("main")
        assert (root / "a.txt").read_bytes() == old == (root / "b.txt").read_bytes()
    finally:
        engine.close()


def test_a_state_folder_reached_through_the_users_own_link_keeps_blob_files(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "real-state").mkdir()
    (tmp_path / "state").symlink_to(tmp_path / "real-state")  # e.g. a home folder that is a link
    monkeypatch.setenv("STRINGSH_STATE_DIR", str(tmp_path / "state"))
    root = tmp_path / "ws"
    root.mkdir()
    old = big("old")
    (root / "big.txt").write_bytes(old)
    engine = Workspace(root)
    try:
        engine.apply(ChangeSet().write("big.txt", b"new\n"))
        assert [p.name for p in (tmp_path / "real-state").rglob(sha256(old))] == [sha256(old)]
        engine.undo("main")
        assert (root / "big.txt").read_bytes() == old
    finally:
        engine.close()
