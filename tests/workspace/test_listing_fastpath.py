"""list_dir's fast path (one scandir, the folder's secret check once, `denied_leaf` per name) lists exactly what the
per-entry rule lists: secrets at any depth, user globs, allow exceptions, symlinks resolved confined."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from stringsh.errors import StringError
from stringsh.workspace import Workspace
from stringsh.workspace.secrets import SecretMatcher

POLICY = """[secrets]
deny_globs = ["*.secret", "private/**", "build/*.log", "**/tmp?/*.bak"]
allow_globs = ["build/keep.log"]
"""
FILES = (
    ".env", ".env.example", ".ENV.local", "README.md", "id_rsa", "id_rsa.pub", "cert.PEM", "my-kubeconfig",
    "notes.secret", "keep.txt", ".~stringsh-temp", "sub/.env", "sub/ok.py", "sub/.aws/credentials", "sub/.aws/other",
    "private/x.txt", "private/ok/y.txt", "build/a.log", "build/b.txt", "build/keep.log", "build/deep/c.log",
    "tmp1/x.bak", "tmp1/x.bk",
    ".config/gcloud/token", ".config/other.txt", ".ssh/id_ed25519", "sub/.ssh/known_hosts",
    *(f"many/module_{n:03d}.py" for n in range(300)), "many/.env.prod", "many/server.key",
)
LINKS = {"link_dir": "sub", "link_out": "/", "link_env": ".env", "link_ssh": ".ssh", "broken": "nowhere",
         "sub/up": "..", "sub/link_priv": "../private"}


def build(root: Path) -> None:
    for rel in FILES:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n")
    for rel, target in LINKS.items():
        os.symlink(target, root / rel)
    (root / "stringsh.toml").write_text(POLICY)


def reference(root: Path, rel: str, matcher: SecretMatcher) -> list[tuple[str, bool]]:
    """The rule entry by entry: every name's whole path checked with `denied`, symlinks followed inside the root."""
    folder, real_root = root / rel, root.resolve()
    listed = []
    for name in sorted(os.listdir(folder)):
        path = name if rel == "." else f"{rel}/{name}"
        if (rel == "." and name == ".stringsh") or name.startswith(".~stringsh-") or matcher.denied(path):
            continue
        entry = folder / name
        if entry.is_symlink():
            target = entry.resolve()
            inside = target.is_relative_to(real_root) and target.is_dir()
            is_dir = inside and not matcher.denied(str(target.relative_to(real_root)))
        else:
            is_dir = entry.is_dir()
        listed.append((name, is_dir))
    return listed


def test_listings_equal_the_entry_by_entry_rule(tmp_path: Path) -> None:
    build(tmp_path)
    workspace = Workspace.load(tmp_path)
    matcher = SecretMatcher(workspace.policy.secrets.deny_globs, workspace.policy.secrets.allow_globs)
    try:
        for rel in (".", "sub", "sub/.aws", "build", "build/deep", "tmp1", ".config", "many", "link_dir"):
            got = [(entry.name, entry.is_dir) for entry in workspace.list_dir(rel)]
            assert got == reference(tmp_path, rel, matcher), rel
        root = [(entry.name, entry.is_dir) for entry in workspace.list_dir(".")]
        assert root == [
            (".config", True), (".env.example", False), ("README.md", False), ("broken", False),
            ("build", True), ("id_rsa.pub", False), ("keep.txt", False), ("link_dir", True), ("link_env", False),
            ("link_out", False), ("link_ssh", False), ("many", True), ("stringsh.toml", False), ("sub", True),
            ("tmp1", True),
        ]
        assert [e.name for e in workspace.list_dir("sub")] == [".aws", "link_priv", "ok.py", "up"]
        assert [e.is_dir for e in workspace.list_dir("sub")] == [True, False, False, True]
        assert [e.name for e in workspace.list_dir("sub/.aws")] == ["other"]
        assert [e.name for e in workspace.list_dir("build")] == ["b.txt", "deep"]  # an untrusted allow widens: ignored
        assert [e.name for e in workspace.list_dir("build/deep")] == ["c.log"]
        assert [e.name for e in workspace.list_dir("tmp1")] == ["x.bk"]
        assert [e.name for e in workspace.list_dir(".config")] == ["other.txt"]
        assert len(workspace.list_dir("many")) == 300
        for denied in ("private", "private/ok", "sub/.ssh", ".config/gcloud", "sub/link_priv"):
            with pytest.raises(StringError) as caught:
                workspace.list_dir(denied)
            assert caught.value.code == "SECRET_DENIED", denied
    finally:
        workspace.close()
