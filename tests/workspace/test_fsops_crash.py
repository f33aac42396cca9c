"""A crash in the middle of /mv, /rm -r or /mkdir: the child process dies at a chosen point; the next
workspace recovers the tree to exactly the state before or after the operation (hashed), nothing pending, and
the recovered change still undoes byte for byte when it was rolled forward."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from stringsh.workspace import Workspace
from tests.workspace.test_fsops import tree_hash

REPO = Path(__file__).resolve().parents[2]
CHILD = Path(__file__).with_name("fsops_crash_child.py")


def make_tree(root: Path) -> None:
    (root / "d" / "e" / "empty").mkdir(parents=True)
    (root / "d" / "a.txt").write_bytes(b"one\r\ntwo\r\n")
    (root / "d" / "e" / "b.sh").write_bytes(b"#!/bin/sh\n")
    (root / "d" / "e" / "c.txt").write_bytes(b"c\n")
    os.chmod(root / "d" / "e" / "b.sh", 0o750)
    os.chmod(root / "d" / "e", 0o711)
    os.symlink("../a.txt", root / "d" / "e" / "ln")


def run_child(root: Path, operation: str, point: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    return subprocess.run([sys.executable, str(CHILD), str(root), operation, point], capture_output=True,
                          text=True, env=env, timeout=60)


@pytest.mark.parametrize("operation", ["move", "delete", "mkdir"])
@pytest.mark.parametrize("point", ["after_make", "mid_files", "before_removals"])
def test_a_crash_leaves_the_state_before_or_after(tmp_path: Path, operation: str, point: str) -> None:
    reference = tmp_path / "reference"
    make_tree(reference)
    before = tree_hash(reference)
    finished = run_child(reference, operation, "never")
    assert finished.returncode == 0, finished.stderr
    after = tree_hash(reference)
    shutil.rmtree(reference)

    root = tmp_path / "root"
    make_tree(root)
    crashed = run_child(root, operation, point)
    assert crashed.returncode == (0 if (operation, point) == ("mkdir", "mid_files") else 137), crashed.stderr
    workspace = Workspace.load(root)
    try:
        assert workspace.journal.pending() == []
        state = tree_hash(root)
        assert state in (before, after)
        assert not [p for p in root.rglob("*") if p.name.startswith(".~stringsh-")]
        change = workspace.history(1)[0]
        if state == after and crashed.returncode == 137:
            assert change.state == "done"
            assert workspace.revert(change.id).reverted_id == change.id
            assert tree_hash(root) == before
    finally:
        workspace.close()
