"""The journal's per-client records (owners, skips, created folders) follow the change sets they
describe: written in the same transaction, pruned with them."""

from __future__ import annotations

from pathlib import Path

from stringsh.workspace import ChangeSet, Workspace


def test_owner_and_new_folders_are_written_with_the_change_and_pruned_with_it(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    workspace = Workspace(root)
    try:
        first = workspace.apply(ChangeSet().write("n/d/a.md", b"a\n"))
        [row] = workspace.journal.files(first)
        assert row.new_dirs == ("n", "n/d")
        assert workspace.journal.get(first).client == workspace.state.client
        second = workspace.apply(ChangeSet().write("n/d/b.md", b"b\n"))
        assert workspace.journal.files(second)[0].new_dirs == ()  # n/d was there already
        workspace.undo_skip("main")
        assert workspace.journal.get(second).skipped is not None
        assert workspace.undo_depth("main") == 1
        for n in range(1, 4):
            workspace.apply(ChangeSet().write("c.md", b"c\n" * n))
        assert workspace.prune(keep=1) == 4
        db = workspace.journal.db
        assert db.execute("SELECT cs FROM owners").fetchall() == [(5,)]
        assert db.execute("SELECT COUNT(*) FROM new_dirs").fetchone() == (0,)
    finally:
        workspace.close()
