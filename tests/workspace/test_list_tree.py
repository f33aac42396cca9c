"""Workspace.list_tree: list_dir's listing folder by folder (MCP directory_tree is its reply); a link is listed,
never entered; the limit stops the walk; the list_dir permission is its own."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from stringsh.errors import StringError
from stringsh.workspace import Workspace
from stringsh.workspace.ops.listdir import TreeEntry
from stringsh.workspace.policy import Permissions, Policy


def test_each_folder_as_list_dir_lists_it(tmp_path: Path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "a" / "b" / "f.txt").write_text("f\n")
    (tmp_path / "a" / ".env").write_text("T=1\n")
    (tmp_path / "top.txt").write_text("t\n")
    os.symlink("a", tmp_path / "ln")
    ws = Workspace(tmp_path)
    try:
        ws.write_text("made.txt", "m\n")  # the engine's state exists now: never listed
        found = ws.list_tree(".")
        assert (found.rel, found.over_limit) == (".", False)
        assert found.entries == (
            TreeEntry("a", True, (TreeEntry("b", True, (TreeEntry("f.txt", False),)),)),
            TreeEntry("ln", True), TreeEntry("made.txt", False), TreeEntry("top.txt", False))
        assert [(e.name, e.is_dir) for e in ws.list_dir(".")] == [(e.name, e.is_dir) for e in found.entries]
        assert ws.list_tree("a", max_depth=1).entries == (TreeEntry("b", True),)
        assert ws.list_tree("a", skip=lambda rel: rel == "b/f.txt").entries == (TreeEntry("b", True),)
        assert ws.list_tree(".", limit=5) == (".", (), True)  # six entries
        assert ws.list_tree(".", limit=6).over_limit is False
    finally:
        ws.close()


def test_refusals(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("f\n")
    (tmp_path / ".env").mkdir()
    ws = Workspace(tmp_path)
    try:
        with pytest.raises(StringError) as caught:
            ws.list_tree(".env")
        assert caught.value.code == "SECRET_DENIED"
        with pytest.raises(StringError) as caught:
            ws.list_tree("../")
        assert caught.value.code == "INVALID_PATH"
    finally:
        ws.close()
    policy = Policy.default(tmp_path)
    ws = Workspace(tmp_path, policy._replace(permissions=Permissions()._replace(list_dir=False)))
    try:
        with pytest.raises(StringError) as caught:
            ws.list_tree(".")
        assert (caught.value.code, caught.value.message) == ("NOT_PERMITTED", "list_dir is disabled by policy")
    finally:
        ws.close()
