"""Fixtures for the engine tests: a workspace root with hostile neighbours, and a snapshot of everything else."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from stringsh.workspace import Workspace


def snapshot(base: Path, skip: Path) -> dict[str, tuple[str, bytes | str, int]]:
    """Every entry under `base` except `skip`: kind, content or link target, mode (symlinks not followed)."""
    seen: dict[str, tuple[str, bytes | str, int]] = {}
    for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
        here = Path(dirpath)
        if here == skip or skip in here.parents:
            dirnames[:] = []
            continue
        for name in dirnames + filenames:
            path = here / name
            if path == skip:
                continue
            st = path.lstat()
            key = str(path.relative_to(base))
            if path.is_symlink():
                seen[key] = ("link", os.readlink(path), st.st_mode)
            elif path.is_dir():
                seen[key] = ("dir", b"", st.st_mode)
            else:
                seen[key] = ("file", path.read_bytes(), st.st_mode)
    return seen


@pytest.fixture
def world(tmp_path: Path) -> Path:
    """tmp/ws/proj is the root; its siblings, tmp/outside, tmp/etc and tmp/home hold what must never change."""
    root = tmp_path / "ws" / "proj"
    root.mkdir(parents=True)
    for sibling in ("proj2", "proj_backup", "proj-old", "projectile", "proj.bak"):
        (tmp_path / "ws" / sibling).mkdir()
        (tmp_path / "ws" / sibling / "x").write_text("sibling\n")
    outside = tmp_path / "outside"
    (outside / "dir").mkdir(parents=True)
    (outside / "secret.txt").write_text("TOP SECRET\n")
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "passwd").write_text("root:x:0:0\n")
    (tmp_path / "home" / ".ssh").mkdir(parents=True)
    (tmp_path / "home" / ".ssh" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    return root


@pytest.fixture
def engine(tmp_path: Path):
    root = tmp_path / "root"
    root.mkdir()
    workspace = Workspace(root)
    yield workspace
    workspace.close()
