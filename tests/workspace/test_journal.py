"""Recovery from hand-made crash states, revert by id, and the hash-chained audit log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stringsh.errors import StringError
from stringsh.workspace import ChangeSet, WholeFile, Workspace, atomic
from stringsh.workspace.changes import sha256
from stringsh.workspace.journalrows import FileRow


def crashed(workspace: Workspace, files: dict[str, tuple[bytes | None, bytes | None]], sealed: bool) -> int:
    """Record a change set as a crashed process would have left it: staged or pending, nothing finished."""
    rows = [
        FileRow(i, path, None if old is None else sha256(old), None if new is None else sha256(new), 0o644, 0o644)
        for i, (path, (old, new)) in enumerate(files.items())
    ]
    blobs = {sha256(old): old for old, _ in files.values() if old is not None}
    change = workspace.journal.begin("main", "test", "apply", None, rows, blobs)
    if sealed:
        workspace.journal.seal(change)
    return change


def test_staged_set_with_temps_only_is_rolled_back(engine: Workspace) -> None:
    root = engine.root
    (root / "a.txt").write_bytes(b"old a\n")
    change = crashed(engine, {"a.txt": (b"old a\n", b"new a\n"), "n.txt": (None, b"new n\n")}, sealed=False)
    (root / atomic.temp_name(change, 0)).write_bytes(b"new a\n")
    (root / atomic.temp_name(change, 1)).write_bytes(b"new n\n")
    engine.recover()
    assert engine.journal.get(change).state == "rolled_back"
    assert sorted(p.name for p in root.iterdir()) == ["a.txt"]  # the journal lives in the user state folder
    assert (root / "a.txt").read_bytes() == b"old a\n"


def test_half_renamed_set_is_rolled_back_including_a_created_file(engine: Workspace) -> None:
    root = engine.root
    (root / "a.txt").write_bytes(b"old a\n")
    (root / "b.txt").write_bytes(b"old b\n")
    files = {"a.txt": (b"old a\n", b"new a\n"), "n.txt": (None, b"new n\n"), "b.txt": (b"old b\n", b"new b\n")}
    change = crashed(engine, files, sealed=True)
    (root / "a.txt").write_bytes(b"new a\n")  # renamed before the crash
    (root / "n.txt").write_bytes(b"new n\n")
    (root / atomic.temp_name(change, 2)).write_bytes(b"new b\n")  # staged, never renamed
    engine.recover()
    assert engine.journal.get(change).state == "rolled_back"
    assert (root / "a.txt").read_bytes() == b"old a\n" and (root / "b.txt").read_bytes() == b"old b\n"
    assert not (root / "n.txt").exists() and not (root / atomic.temp_name(change, 2)).exists()
    with pytest.raises(StringError) as caught:
        engine.undo("main")
    assert caught.value.message == "Nothing to undo."


def test_fully_renamed_set_is_rolled_forward_and_stays_undoable(engine: Workspace) -> None:
    root = engine.root
    (root / "a.txt").write_bytes(b"new a\n")
    (root / "gone.txt").write_bytes(b"")
    (root / "gone.txt").unlink()
    change = crashed(engine, {"a.txt": (b"old a\n", b"new a\n"), "gone.txt": (b"bye\n", None)}, sealed=True)
    engine.recover()
    assert engine.journal.get(change).state == "done"
    outcome = engine.undo("main")
    assert [(f.rel, f.action) for f in outcome.files] == [("a.txt", "reverted"), ("gone.txt", "restored")]
    assert (root / "a.txt").read_bytes() == b"old a\n" and (root / "gone.txt").read_bytes() == b"bye\n"


def test_recovery_leaves_a_later_edit_by_someone_else_alone(engine: Workspace) -> None:
    root = engine.root
    (root / "a.txt").write_bytes(b"edited by hand after the crash\n")
    (root / "b.txt").write_bytes(b"new b\n")
    change = crashed(engine, {"a.txt": (b"old a\n", b"new a\n"), "b.txt": (b"old b\n", b"new b\n")}, sealed=True)
    engine.recover()
    assert engine.journal.get(change).state == "rolled_back"
    assert (root / "a.txt").read_bytes() == b"edited by hand after the crash\n"
    assert (root / "b.txt").read_bytes() == b"old b\n"


def test_previous_bytes_over_the_limit_are_not_journalled(tmp_path: Path) -> None:
    (tmp_path / "stringsh.toml").write_text("[limits]\nmax_read_bytes = 16\nmax_write_bytes = 16\n")
    (tmp_path / "huge.log").write_bytes(b"x" * 100)
    workspace = Workspace.load(tmp_path)
    with pytest.raises(StringError) as caught:
        workspace.write_text("huge.log", "small\n")
    assert caught.value.code == "TOO_LARGE"
    assert (tmp_path / "huge.log").read_bytes() == b"x" * 100
    workspace.close()


def test_another_process_recovers_on_its_next_write(engine: Workspace, tmp_path: Path) -> None:
    root = engine.root
    (root / "a.txt").write_bytes(b"old\n")
    change = crashed(engine, {"a.txt": (b"old\n", b"new\n"), "b.txt": (None, b"b\n")}, sealed=True)
    (root / "a.txt").write_bytes(b"new\n")  # b.txt was never renamed into place
    other = Workspace(root)
    with pytest.raises(StringError):  # expected hash of the new bytes: the rollback happened first
        other.write_text("a.txt", "x\n", guard=WholeFile(sha256(b"new\n")))
    assert (root / "a.txt").read_bytes() == b"old\n"
    assert other.journal.get(change).state == "rolled_back"
    other.close()


def test_revert_by_id_multi_file_and_its_refusals(engine: Workspace) -> None:
    root = engine.root
    (root / "keep.txt").write_bytes(b"k\r\n")
    first = engine.apply(ChangeSet().write("keep.txt", b"K\r\n").write("new/deep.txt", b"d\n"))
    second = engine.apply(ChangeSet().delete("keep.txt"))
    with pytest.raises(StringError) as caught:
        engine.revert(first)
    assert caught.value.code == "CONFLICT"
    outcome = engine.revert(second)
    assert [(f.rel, f.action, f.lines) for f in outcome.files] == [("keep.txt", "restored", 1)]
    outcome = engine.revert(first)
    assert [(f.rel, f.action) for f in outcome.files] == [("keep.txt", "reverted"), ("new/deep.txt", "deleted")]
    assert (root / "keep.txt").read_bytes() == b"k\r\n" and not (root / "new" / "deep.txt").exists()
    for bad, code in ((first, "INVALID_TARGET"), (outcome.change_id, "INVALID_TARGET"), (999, "NOT_FOUND")):
        with pytest.raises(StringError) as caught:
            engine.revert(bad)
        assert caught.value.code == code


def test_all_or_nothing_when_one_precondition_fails(engine: Workspace) -> None:
    root = engine.root
    (root / "a.txt").write_bytes(b"a\n")
    with pytest.raises(StringError) as caught:
        engine.apply(ChangeSet().write("b.txt", b"b\n").write("a.txt", b"A\n", expected_prev_sha256="0" * 64))
    assert caught.value.code == "CONFLICT"
    with pytest.raises(StringError) as caught:
        engine.apply(ChangeSet().write("c.txt", b"c\n").write("a.txt", b"A\n", expected_prev_sha256=""))
    assert caught.value.message == "a.txt was created since it was read; nothing was written."
    with pytest.raises(StringError) as caught:
        engine.apply(ChangeSet().write("a.txt", b"1\n").write("./a.txt", b"2\n"))
    assert caught.value.code == "INVALID_PAYLOAD"
    with pytest.raises(StringError) as caught:
        engine.apply(ChangeSet())
    assert caught.value.code == "INVALID_PAYLOAD"
    assert sorted(p.name for p in root.iterdir()) == [".stringsh", "a.txt"]
    assert (root / "a.txt").read_bytes() == b"a\n"


def test_budget_and_size_limits(tmp_path: Path) -> None:
    (tmp_path / "stringsh.toml").write_text(
        '[changes]\nmax_files = 2\nmax_loc = 3\nallow_globs = ["docs/*", "*.md"]\n[limits]\nmax_read_bytes = 8\n'
    )
    workspace = Workspace.load(tmp_path)
    workspace.write_text("docs/a.txt", "1\n2\n")
    workspace.write_text("deep/b.md", "1\n")
    with pytest.raises(StringError) as caught:
        workspace.write_text("src/main.py", "x\n")
    assert caught.value.message == "Path is not on the policy's change allow-list: src/main.py"
    with pytest.raises(StringError) as caught:
        workspace.apply(ChangeSet().write("a.md", b"1\n2\n").write("b.md", b"3\n4\n"))
    assert (caught.value.code, caught.value.message) == (
        "BUDGET_EXCEEDED",
        "Too many lines changed: 6 > 3 (this change set: 2 files, 6 lines; allowed: 2 files, 3 lines)",
    )
    assert not (tmp_path / "src").exists() and not (tmp_path / "a.md").exists()
    with pytest.raises(StringError) as caught:
        workspace.apply(ChangeSet().write("a.md", b"a").write("b.md", b"b").write("c.md", b"c"))
    assert (caught.value.code, caught.value.message) == (
        "BUDGET_EXCEEDED", "Too many files: 3 > 2 (this change set: 3 files, 3 lines; allowed: 2 files, 3 lines)"
    )
    (tmp_path / "big.txt").write_bytes(b"123456789\n")
    with pytest.raises(StringError) as caught:
        workspace.read_text("big.txt")
    assert caught.value.code == "TOO_LARGE"
    workspace.close()


def test_audit_log_chains_records_without_contents(engine: Workspace) -> None:
    engine.write_text("notes.md", "TOPSECRETCONTENT\n", topic="t1")
    engine.read_text("notes.md", topic="t1")
    with pytest.raises(StringError):
        engine.write_text(".env", "K=1\n", topic="t1")
    engine.undo("t1")
    log = engine.state.audit_path
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(r["op"], r["outcome"], r["topic"]) for r in records] == [
        ("write", "ok", "t1"), ("read", "ok", "t1"), ("write", "SECRET_DENIED", "t1"), ("undo", "ok", "t1")
    ]
    assert records[0]["paths"] == ["notes.md"] and records[0]["change"] == 1 and records[-1]["change"] == 2
    assert all(r["frontend"] == "string" for r in records)
    assert b"TOPSECRETCONTENT" not in log.read_bytes()
    assert engine.verify_audit().ok and engine.verify_audit().records == 4


def test_audit_tampering_is_detected(engine: Workspace) -> None:
    for i in range(3):
        engine.write_text(f"f{i}.md", "x\n")
    log = engine.state.audit_path
    lines = log.read_text().splitlines(keepends=True)
    log.write_text(lines[0] + lines[1].replace('"ok"', '"NOT_FOUND"') + lines[2])
    check = engine.verify_audit()
    assert (check.ok, check.records, check.bad_line, check.reason) == (False, 1, 2, "hash mismatch")
    log.write_text(lines[0] + lines[2])
    check = engine.verify_audit()
    assert (check.ok, check.bad_line, check.reason) == (False, 2, "chain broken")


def test_prune_keeps_the_newest_changes_and_their_bytes(engine: Workspace) -> None:
    for i in range(6):
        engine.write_text("a.txt", f"v{i}\n")
    assert engine.prune(keep=2) == 4
    assert [row.id for row in engine.history()] == [6, 5]
    blobs = engine.journal.db.execute("SELECT COUNT(*) FROM blobs").fetchone()[0]
    assert blobs == 2  # v3 and v4, the bytes changes 5 and 6 replaced
    engine.undo("main")
    engine.undo("main")
    assert (engine.root / "a.txt").read_text() == "v3\n"
    with pytest.raises(StringError) as caught:
        engine.undo("main")
    # On purpose: past the pruned depth undo says so, instead of "Nothing to undo."
    assert caught.value.message == "Nothing left to undo: older changes of this topic were pruned from the journal."


def test_undo_depth_counts_what_undo_can_walk_back(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    assert workspace.undo_depth("main") == 0 and not (tmp_path / ".stringsh").exists()
    workspace.write_text("a.txt", "1\n")
    workspace.write_text("a.txt", "2\n")
    workspace.write_text("b.txt", "b\n", topic="other")
    assert (workspace.undo_depth("main"), workspace.undo_depth("other")) == (2, 1)
    workspace.undo("main")
    assert workspace.undo_depth("main") == 1
    workspace.close()


def test_write_of_a_file_that_appears_before_the_lock_is_a_conflict(tmp_path: Path) -> None:
    # /write saw no file, so it asked for none; a crashed deletion rolled back under the lock brings it back.
    from stringsh.dispatcher import Dispatcher

    (tmp_path / "f.txt").write_bytes(b"theirs\n")
    (tmp_path / "g.txt").write_bytes(b"g\n")
    dispatcher = Dispatcher(tmp_path)
    crashed(dispatcher.workspace, {"f.txt": (b"theirs\n", None), "g.txt": (b"g\n", b"g2\n")}, sealed=True)
    (tmp_path / "f.txt").unlink()  # the deletion happened, g.txt was never replaced
    assert dispatcher.execute("/write f.txt mine").text == (
        "re: /write f.txt mine\nERROR(CONFLICT): f.txt was created since it was read; nothing was written.\n"
        "Read f.txt again and redo the change."
    )
    assert (tmp_path / "f.txt").read_bytes() == b"theirs\n"
    forced = dispatcher.execute("/write --force f.txt mine")
    assert forced.text == "re: /write --force f.txt mine\nWritten: f.txt (5 bytes, 1 line)"
    dispatcher.close()
