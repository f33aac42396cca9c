"""`Workspace.search_walk`, the walk a search above the engine (`/symbols`) runs on: the grep permission checked
when it is asked for, one audit record for the whole search, the confined no-follow walk's files with their
identity, reads within the read limit refusing hard links unless allowed, and the traversal counts. Real files."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from stringsh.errors import StringError
from stringsh.workspace import Workspace
from stringsh.workspace.policy import Limits, Permissions, Policy, Secrets
from stringsh.workspace.state import AUDIT_FILE, state_folder


def audit_records(root: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (state_folder(root) / AUDIT_FILE).read_text().splitlines()]


def make_tree(root: Path) -> None:
    (root / "src" / "deep").mkdir(parents=True)
    (root / "src" / "a.py").write_text("def a(): pass\n")
    (root / "src" / "deep" / "b.py").write_text("def b(): pass\n")
    (root / "src" / "big.py").write_text("x" * 100)
    (root / ".env").write_text("TOKEN=1\n")
    (root / ".gitignore").write_text("build/\n")
    (root / "build").mkdir()
    (root / "build" / "gen.py").write_text("def g(): pass\n")
    (root.parent / "outside.py").write_text("def o(): pass\n")
    (root / "src" / "link.py").symlink_to(root.parent / "outside.py")
    os.link(root / "src" / "a.py", root.parent / "alias.py")  # src/a.py is now a hard link


def walked(workspace: Workspace, path: str) -> list[tuple[str, bytes | None]]:
    with workspace.search_walk([path], command="symbols x", topic="t1") as walking:
        return [(found.rel, found.read()) for found in walking.files(path)]


def test_the_files_are_the_confined_walks_and_read_within_the_limits(ws: Path) -> None:
    make_tree(ws)
    policy = Policy.default(ws)
    workspace = Workspace(ws, policy._replace(limits=Limits(max_read_bytes=50)))
    try:
        assert walked(workspace, ".") == [
            (".gitignore", b"build/\n"),
            ("src/a.py", None),  # a hard link
            ("src/big.py", None),  # over the read limit
            ("src/deep/b.py", b"def b(): pass\n"),
        ]
    finally:
        workspace.close()
    workspace = Workspace(ws, policy._replace(secrets=Secrets(allow_hardlinks=True)))
    try:
        assert walked(workspace, "src") == [("src/a.py", b"def a(): pass\n"), ("src/big.py", b"x" * 100),
                                            ("src/deep/b.py", b"def b(): pass\n")]
    finally:
        workspace.close()


def test_one_file_its_identity_and_the_traversal(ws: Path) -> None:
    make_tree(ws)
    workspace = Workspace(ws)
    try:
        with workspace.search_walk(["src/deep/b.py", "src"], command="symbols b", topic="t1") as walking:
            one = walking.files("src/deep/b.py")
            assert (one.rel, one.one_file) == ("src/deep/b.py", True)
            [found] = list(one)
            st = os.stat(ws / "src" / "deep" / "b.py")
            assert (found.rel, found.key) == ("src/deep/b.py", (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns))
            folder = walking.files("src")
            assert (folder.rel, folder.one_file) == ("src", False)
            assert [found.rel for found in folder] == ["src/a.py", "src/big.py", "src/deep/b.py"]
            with pytest.raises(RuntimeError):
                list(folder)  # walked once
            walking.stop("results")
            traversal = walking.traversal()
        assert (traversal.scanned_files, traversal.skipped_symlinks, traversal.scan_limit_reached,
                traversal.scan_limit_reason) == (4, 1, True, "results")
    finally:
        workspace.close()


def test_one_audit_record_and_the_permission_first(ws: Path) -> None:
    make_tree(ws)
    workspace = Workspace(ws)
    try:
        walked(workspace, "src")
        with pytest.raises(StringError) as caught, workspace.search_walk(["nope"], command="symbols --refs x",
                                                                         topic="t2") as walking:
            walking.files("nope")
        assert caught.value.code == "NOT_FOUND"
        with pytest.raises(RuntimeError):
            workspace.search_walk(["src"], command="symbols x").files("src")  # only inside its `with`
    finally:
        workspace.close()
    assert [(r["op"], r["outcome"], r["topic"], r["paths"], r["command"]) for r in audit_records(ws)] == [
        ("grep", "ok", "t1", ["src"], "symbols x"),
        ("grep", "NOT_FOUND", "t2", ["nope"], "symbols --refs x"),
    ]
    denied = Workspace(ws, Policy.default(ws)._replace(permissions=Permissions(grep=False)))
    try:
        with pytest.raises(StringError) as caught:
            denied.search_walk(["src"], command="symbols x")  # refused when asked for, before any `with`
        assert (caught.value.code, caught.value.hint) == ("NOT_PERMITTED", "The policy's [permissions] grep = false.")
    finally:
        denied.close()


def test_a_path_never_walked_leaves_no_folder_open(ws: Path) -> None:
    make_tree(ws)
    workspace = Workspace(ws)
    try:
        walked(workspace, "src")  # the engine's own descriptors (journal, audit log) are open from here on
        before = sorted(os.listdir("/proc/self/fd"))
        with workspace.search_walk(["src", "."], command="symbols x") as walking:
            walking.files("src")
            files = iter(walking.files("."))
            assert next(files).rel == ".gitignore"
            del files  # a walk left early
        assert sorted(os.listdir("/proc/self/fd")) == before
    finally:
        workspace.close()
