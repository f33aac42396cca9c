"""The operations modules: each checks its own permission (through the facade and when called directly), the
engine state owns its paths and objects, and two workspaces in one process share nothing mutable."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from stringsh.errors import StringError
from stringsh.workspace import ChangeSet, Workspace
from stringsh.workspace.models import FileChange
from stringsh.workspace.ops import apply, listdir, read, revert, shell, stat, write
from stringsh.workspace.policy import Permissions, Policy
from stringsh.workspace.state import AUDIT_FILE, state_folder, state_key

Call = Callable[[Workspace], Any]

#: permission flag -> (through the facade, through the op module directly)
CASES: dict[str, list[tuple[Call, Call]]] = {
    "stat": [(lambda w: w.stat("a.txt"), lambda w: stat.stat_path(w, stat.StatRequest("a.txt")))],
    "list_dir": [(lambda w: w.list_dir("."), lambda w: listdir.list_dir(w, listdir.ListRequest(".")))],
    "read": [
        (lambda w: w.read_text("a.txt"), lambda w: read.read_text(w, read.ReadRequest("a.txt"))),
        (lambda w: w.read_bytes("a.txt"), lambda w: read.read_bytes(w, read.ReadRequest("a.txt"))),
        (lambda w: w.fingerprint("a.txt"), lambda w: read.fingerprint(w, read.ReadRequest("a.txt"))),
    ],
    "write": [
        (lambda w: w.write_text("b.txt", "x\n"), lambda w: write.write_text(w, write.WriteRequest("b.txt", "x\n"))),
        (lambda w: w.append_text("a.txt", "x\n"), lambda w: write.append_text(w, write.AppendRequest("a.txt", "x\n"))),
        (
            lambda w: w.apply(ChangeSet().write("b.txt", b"x\n")),
            lambda w: apply.apply(w, apply.ApplyRequest((FileChange("b.txt", b"x\n"),))),
        ),
    ],
    "delete": [
        (
            lambda w: w.apply(ChangeSet().delete("a.txt")),
            lambda w: apply.apply(w, apply.ApplyRequest((FileChange("a.txt", None),))),
        )
    ],
    "revert": [
        (lambda w: w.revert(1), lambda w: revert.revert(w, revert.RevertRequest(1))),
        (lambda w: w.undo("main"), lambda w: revert.undo(w, revert.UndoRequest("main"))),
    ],
    "shell": [
        (lambda w: w.shell_settings(), lambda w: shell.shell_settings(w)),
        (lambda w: w.exec_once(shell.ShellRequest("true", "main")),
         lambda w: shell.run_once(w, shell.ShellRequest("true", "main"))),
        (lambda w: w.shell(shell.ShellRequest("true", "main"), Slot()),
         lambda w: shell.run_in_topic_shell(w, shell.ShellRequest("true", "main"), Slot())),
    ],
}


class Slot:
    """Stands in for a Session: where the topic's shell is kept."""

    def __init__(self) -> None:
        self.bash: Any = None
        self.shell_lock = threading.Lock()
        self.ended = False


def without(root: Path, flag: str) -> Workspace:
    permissions = Permissions()._replace(**{flag: False})
    return Workspace(root, Policy.default(root)._replace(permissions=permissions))


@pytest.mark.parametrize("flag", sorted(CASES))
def test_each_operation_checks_its_own_permission(tmp_path: Path, flag: str) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    allowed = Workspace(tmp_path)
    allowed.write_text("c.txt", "c\n")  # change 1, for revert and undo
    allowed.close()
    workspace = without(tmp_path, flag)
    try:
        for facade, direct in CASES[flag]:
            for call in (facade, direct):
                with pytest.raises(StringError) as caught:
                    call(workspace)
                assert caught.value.code == "NOT_PERMITTED"
                assert caught.value.message == f"{flag} is disabled by policy"
    finally:
        workspace.close()
    assert (tmp_path / "a.txt").read_text() == "a\n" and not (tmp_path / "b.txt").exists()


def test_a_read_only_root_refuses_every_mutation(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    policy = Policy.default(tmp_path)
    workspace = Workspace(tmp_path, policy._replace(roots=(policy.root._replace(mode="read_only"),)))
    for flag, refused in (("write", "write"), ("delete", "write"), ("revert", "revert")):  # a delete writes too
        for facade, direct in CASES[flag]:
            for call in (facade, direct):
                with pytest.raises(StringError) as caught:
                    call(workspace)
                assert caught.value.message == f"{refused} is not allowed: root main is read_only"
    assert workspace.read_text("a.txt").text == "a\n"
    workspace.close()


TOKEN = "ghp_" + "a1B2c3D4" * 5  # a GitHub token the built-in redactor knows


def audit_records(root: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (state_folder(root) / AUDIT_FILE).read_text().splitlines()]


def test_a_refused_shell_is_audited(tmp_path: Path) -> None:
    """The command line is recorded (it was not before), with the secrets it holds masked."""
    workspace = without(tmp_path, "shell")
    slot = Slot()
    with pytest.raises(StringError) as caught:
        workspace.shell(shell.ShellRequest(f"echo {TOKEN}", "t1"), slot)
    assert (caught.value.code, caught.value.hint) == ("NOT_PERMITTED", "The policy's [permissions] shell = false.")
    with pytest.raises(StringError):
        workspace.exec_once(shell.ShellRequest(f"echo {TOKEN}", "t1"))
    assert slot.bash is None
    records = audit_records(tmp_path)
    assert [(r["op"], r["outcome"], r["topic"], r["paths"], r["command"]) for r in records] == [
        ("shell", "NOT_PERMITTED", "t1", [], "echo ***REDACTED***"),
        ("exec", "NOT_PERMITTED", "t1", [], "echo ***REDACTED***"),
    ]
    assert TOKEN not in (state_folder(tmp_path) / AUDIT_FILE).read_text()
    assert workspace.verify_audit().ok
    workspace.close()


def test_an_internal_error_in_a_shell_run_is_audited(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from stringsh.workspace.shell import oneshot, session

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(session.ShellSession, "run", broken)
    monkeypatch.setattr(oneshot, "run_once", broken)
    workspace = Workspace(tmp_path)
    slot = Slot()
    try:
        with pytest.raises(RuntimeError):
            workspace.shell(shell.ShellRequest("true", "main"), slot)
        with pytest.raises(RuntimeError):
            workspace.exec_once(shell.ShellRequest("true", "main"))
    finally:
        if slot.bash is not None:
            slot.bash.close()
    records = audit_records(tmp_path)
    assert [(r["op"], r["outcome"]) for r in records] == [
        ("shell", "INTERNAL_ERROR:RuntimeError"), ("exec", "INTERNAL_ERROR:RuntimeError"),
    ]
    workspace.close()


def test_shell_runs_keep_the_topic_shell_in_the_slot(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    slot = Slot()
    try:
        first = workspace.shell(shell.ShellRequest("cd /; (exit 3)", "main"), slot)
        kept = slot.bash
        second = workspace.shell(shell.ShellRequest("pwd", "main", variables={"who": "x"}), slot)
        assert (first.code, first.ok, second.output, slot.bash is kept) == ("EXIT_3", False, "/", True)
        once = workspace.exec_once(shell.ShellRequest("pwd", "main", timeout=5))
        assert (once.output, once.code) == (str(tmp_path.resolve()), None)
    finally:
        if slot.bash is not None:
            slot.bash.close()
    assert [(r["op"], r["outcome"]) for r in audit_records(tmp_path)] == [
        ("shell", "EXIT_3"), ("shell", "ok"), ("exec", "ok"),
    ]
    workspace.close()


def test_engine_state_owns_its_paths(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    state = workspace.state
    root = tmp_path.resolve()
    assert state.spool_dir == root / ".stringsh" / "spool"
    assert state.index_cache_dir == root / ".stringsh" / "cache" / "index"
    assert state.audit_path == state_folder(root) / AUDIT_FILE
    assert state.path == Path(os.environ["XDG_STATE_HOME"]) / "stringsh" / "workspaces" / state_key(root)
    assert not (tmp_path / ".stringsh").exists() and not state.path.exists()  # paths only: nothing is created
    workspace.close()


def test_the_cache_key_is_private_stable_and_per_user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STRINGSH_CONFIG_DIR", str(tmp_path / "config"))
    one, two = Workspace(tmp_path / ".." / tmp_path.name), Workspace(tmp_path)
    key = one.state.cache_key()
    assert key is not None and len(key) == 32
    assert one.state.cache_key() == key == two.state.cache_key()
    path = tmp_path / "config" / "cache.key"
    assert path.read_bytes() == key and path.stat().st_mode & 0o777 == 0o600
    one.close()
    two.close()


def test_two_workspaces_share_no_pool_or_probe(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one, two = Workspace(tmp_path / "a"), Workspace(tmp_path / "b")
    assert one.state.fsync_pool is not two.state.fsync_pool
    assert one.state.bwrap_probe is not two.state.bwrap_probe
    assert one.state.bwrap_probe is one.state.bwrap_probe  # probed once per workspace
    one.apply(ChangeSet().write("x/1.txt", b"1\n").write("y/2.txt", b"2\n"))  # two folders: the pool syncs them
    two.apply(ChangeSet().write("x/1.txt", b"1\n").write("y/2.txt", b"2\n"))
    one.close()
    assert two.apply(ChangeSet().write("z/3.txt", b"3\n").write("w/4.txt", b"4\n")) > 0  # one closed, two works
    two.close()


def test_reading_and_listing_load_no_journal_or_shell(tmp_path: Path) -> None:
    """A read-only use of the engine imports neither sqlite3, the journal, the change machinery, the shell nor
    the dataclass machinery."""
    (tmp_path / "a.txt").write_text("a\n")
    code = (
        "import sys\n"
        "from stringsh.workspace import Workspace\n"
        f"ws = Workspace.load({str(tmp_path)!r})\n"
        "ws.list_dir('.'); ws.read_text('a.txt'); ws.stat('a.txt'); ws.fingerprint('a.txt')\n"
        "print(' '.join(sorted(sys.modules)))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    modules = set(loaded.stdout.split())
    assert not modules & {"sqlite3", "stringsh.workspace.journal", "stringsh.workspace.changes",
                          "stringsh.workspace.models", "stringsh.workspace.ops.write",
                          "stringsh.workspace.ops.shell", "stringsh.workspace.shell.providers",
                          "concurrent.futures", "dataclasses"}, modules
    assert {"stringsh.workspace.ops.listdir", "stringsh.workspace.ops.read"} <= modules
