"""Multi-root policies in the engine and the policy layers: who may add a root, what the journal stores, how a
read_only workspace root and a read_write extra root combine."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from stringsh.errors import StringError
from stringsh.userdirs import user_policy_file
from stringsh.workspace import Workspace, load_policy, trust
from tests.conftest import on_this_machine, run_stringsh


@pytest.fixture
def cloned(tmp_path: Path) -> Path:
    """A workspace someone else wrote, with a folder `sub`, and a folder `outside` next to it."""
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    (ws / "sub" / "s.md").write_text("sub\n")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "o.md").write_text("outside\n")
    return ws


def roots_toml(*roots: str) -> str:
    """`[[roots]]` tables, each given as its `key = value` lines."""
    return "".join(f"[[roots]]\n{root}\n" for root in roots)


MAIN = 'id = "main"\npath = "."'
WIDENING = on_this_machine(
    "stringsh: this workspace's stringsh.toml narrows the policy (untrusted: 1 widening setting ignored: roots;"
    " run 'stringsh trust' to allow it)"
) + "\n"


@pytest.mark.parametrize("path", ["../outside", "ABS", "link"])
def test_an_untrusted_workspace_cannot_add_a_root_outside_it(cloned: Path, path: str) -> None:
    """An extra root widens what stringsh reaches: from an untrusted `stringsh.toml` it is ignored and named, by
    a relative or absolute path or a symlink inside the workspace that leads out."""
    os.symlink("../outside", cloned / "link")
    where = str(cloned.parent / "outside") if path == "ABS" else path
    (cloned / "stringsh.toml").write_text(roots_toml(MAIN, f'id = "out"\npath = "{where}"'))
    proc = run_stringsh(["run", "--keep-going", "-"], cloned, "/ls out:\n/open out:o.md\n/write out:n.md x\n")
    assert proc.stderr.decode().startswith(WIDENING)
    assert proc.stdout.decode() == (
        "re: /ls out:\nERROR(NOT_FOUND): Not found\nNo such folder: out:\n"
        "re: /open out:o.md\nERROR(NOT_FOUND): File not found: out:o.md\n/ls shows what is there.\n"
        "re: /write out:n.md x\nCreated: out:n.md (2 bytes, 1 line)\n"  # a file of that name in the workspace
    )
    assert sorted(os.listdir(cloned.parent / "outside")) == ["o.md"]
    assert (cloned / "out:n.md").read_text() == "x\n"


def test_an_untrusted_workspace_may_name_a_read_only_root_inside_it(cloned: Path) -> None:
    """Narrowing: a read_only root inside the workspace is honoured, and its folder cannot be changed by either
    name."""
    (cloned / "stringsh.toml").write_text(
        '[[roots]]\nid = "main"\npath = "."\n[[roots]]\nid = "docs"\npath = "sub"\nmode = "read_only"\n'
    )
    proc = run_stringsh(["run", "--keep-going", "-"], cloned, "/open docs:s.md\n/write sub/n.md x\n/write a.md a\n")
    narrows = on_this_machine("stringsh: this workspace's stringsh.toml narrows the policy (untrusted)") + "\n"
    assert proc.stderr.decode().startswith(narrows)
    hint = "A read_only root is never changed; /info lists the roots and their modes."
    assert proc.stdout.decode() == (
        "re: /open docs:s.md\nOpened docs:s.md\n---\nsub\n"
        f"re: /write sub/n.md x\nERROR(NOT_PERMITTED): Root docs is read_only: sub/n.md cannot be changed.\n{hint}\n"
        "re: /write a.md a\nCreated: a.md (2 bytes, 1 line)\n"
    )
    assert sorted(os.listdir(cloned / "sub")) == ["s.md"]


def test_a_trusted_workspace_and_the_users_policy_may_add_roots(cloned: Path) -> None:
    outside = cloned.parent / "outside"
    (cloned / "stringsh.toml").write_text(roots_toml(MAIN, 'id = "out"\npath = "../outside"'))
    assert [r.id for r in load_policy(cloned).roots] == ["main"]
    trust.record(cloned, (cloned / "stringsh.toml").read_bytes())
    assert [(r.id, r.path) for r in load_policy(cloned).roots] == [("main", cloned), ("out", outside)]
    (cloned / "stringsh.toml").unlink()
    user = user_policy_file()
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(roots_toml(MAIN, f'id = "out"\npath = "{outside}"\nmode = "read_only"'))
    proc = run_stringsh(["-c", "/open out:o.md"], cloned)
    assert proc.stdout.decode() == "re: /open out:o.md\nOpened out:o.md\n---\noutside\n"


def test_the_journal_names_the_root(tmp_path: Path) -> None:
    """A change in another root is journalled as `id:rel` (no schema change: a journal row without an id is the
    workspace's, as before), so undo and crash recovery find the same file again."""
    (tmp_path / "ws").mkdir()
    (tmp_path / "scratch").mkdir()
    policy_file = tmp_path / "p.toml"
    scratch = f'id = "scratch"\npath = "{tmp_path / "scratch"}"'
    policy_file.write_text(roots_toml(f'path = "{tmp_path / "ws"}"', scratch))
    ws = Workspace.load(tmp_path / "ws", policy_file)
    try:
        outcome = ws.write_text("scratch:a/x.txt", "one\n")
        plain = ws.write_text("x.txt", "main\n")
        assert (tmp_path / "scratch" / "a" / "x.txt").read_text() == "one\n"
        assert [f.path for f in ws.journal.files(outcome.change_id)] == ["scratch:a/x.txt"]
        assert [f.path for f in ws.journal.files(plain.change_id)] == ["x.txt"]
        assert ws.journal.files(outcome.change_id)[0].new_dirs == ("scratch:a",)
        ws.undo("main")
        ws.undo("main")
    finally:
        ws.close()
    assert os.listdir(tmp_path / "scratch") == [] and not (tmp_path / "ws" / "x.txt").exists()


def test_a_read_only_workspace_root_with_a_writable_root(tmp_path: Path) -> None:
    """Each path's own root decides: the read_only workspace refuses, the read_write root beside it takes the
    change; with every root read_only the refusal is the one it always was."""
    (tmp_path / "ws").mkdir()
    (tmp_path / "out").mkdir()
    policy_file = tmp_path / "p.toml"
    policy_file.write_text(
        f'[[roots]]\npath = "{tmp_path / "ws"}"\nmode = "read_only"\n'
        f'[[roots]]\nid = "out"\npath = "{tmp_path / "out"}"\n'
    )
    ws = Workspace.load(tmp_path / "ws", policy_file)
    try:
        with pytest.raises(StringError) as caught:
            ws.write_text("x.txt", "no\n")
        assert (caught.value.code, caught.value.message) == (
            "NOT_PERMITTED", "Root root0 is read_only: x.txt cannot be changed.")
        assert ws.write_text("out:x.txt", "yes\n").rel == "out:x.txt"
    finally:
        ws.close()
    assert not (tmp_path / "ws" / "x.txt").exists()
    assert (tmp_path / "out" / "x.txt").read_text() == "yes\n"


def test_reverting_a_change_in_a_root_now_read_only_is_refused(tmp_path: Path) -> None:
    """A change made while `scratch` was read_write cannot be taken back once the policy makes it read_only: undo
    and revert write through the same per-root check as any change."""
    (tmp_path / "ws").mkdir()
    (tmp_path / "scratch").mkdir()
    main = f'path = "{tmp_path / "ws"}"'
    scratch = f'id = "scratch"\npath = "{tmp_path / "scratch"}"'
    (tmp_path / "rw.toml").write_text(roots_toml(main, scratch))
    (tmp_path / "ro.toml").write_text(roots_toml(main, scratch + '\nmode = "read_only"'))
    ws = Workspace.load(tmp_path / "ws", tmp_path / "rw.toml")
    try:
        change = ws.write_text("scratch:x.txt", "one\n").change_id
    finally:
        ws.close()
    ws = Workspace.load(tmp_path / "ws", tmp_path / "ro.toml")
    try:
        with pytest.raises(StringError) as caught:
            ws.revert(change)
        assert (caught.value.code, caught.value.message) == (
            "NOT_PERMITTED", "Root scratch is read_only: scratch:x.txt cannot be changed.")
    finally:
        ws.close()
    assert (tmp_path / "scratch" / "x.txt").read_text() == "one\n"


def test_two_roots_on_one_folder_read_only_wins(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "p.toml").write_text(
        roots_toml(f'path = "{tmp_path / "ws"}"', f'id = "view"\npath = "{tmp_path / "ws"}"\nmode = "read_only"')
    )
    ws = Workspace.load(tmp_path / "ws", tmp_path / "p.toml")
    try:
        for path in ("x.txt", "view:x.txt"):
            with pytest.raises(StringError) as caught:
                ws.write_text(path, "no\n")
            assert (caught.value.code, caught.value.message) == (
                "NOT_PERMITTED", f"Root view is read_only: {path} cannot be changed.")
    finally:
        ws.close()
    assert not (tmp_path / "ws" / "x.txt").exists()
