"""Every operation module refuses on its own: called directly, without the `Workspace` facade, with a policy that
forbids it (its permission off, or every root read_only), each op says NOT_PERMITTED and writes and journals
nothing. The ops are found in the package, so a new op without a case here (and so without a checked refusal)
fails the coverage test."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from stringsh.errors import StringError
from stringsh.workspace import PartText, Workspace
from stringsh.workspace import ops as ops_package
from stringsh.workspace.models import FileChange, Hunk, Patch
from stringsh.workspace.ops import (
    actionrun,
    apply,
    copy,
    delete,
    glob,
    grep,
    lines,
    listdir,
    mkdir,
    move,
    partedit,
    read,
    replace,
    revert,
    shell,
    stat,
    streams,
    window,
    write,
)
from stringsh.workspace.policy import Permissions, Policy

Call = Callable[[Workspace], Any]


class Slot:
    """Where a topic keeps its shell (a Session stands here in the program)."""

    def __init__(self) -> None:
        self.bash: Any = None
        self.shell_lock = threading.Lock()
        self.ended = False


A_TO_X = Patch("a.txt", (Hunk(1, 1, 1, 1, "-a\n+x"),))

#: The part edit: the file's first line (`a`), held against its own text.
A_PART = partedit.PartEditRequest(
    "a.txt", "a.txt#a", lambda current: partedit.Located("a", "a", lambda body: body + current.text[1:]), "x",
    PartText("a"))

#: (op entry, the permission that alone forbids it, the call): one row per permission an op needs.
CASES: list[tuple[str, str, Call]] = [
    ("stat.stat_path", "stat", lambda w: stat.stat_path(w, stat.StatRequest("a.txt"))),
    ("listdir.list_dir", "list_dir", lambda w: listdir.list_dir(w, listdir.ListRequest("."))),
    ("listdir.list_tree", "list_dir", lambda w: listdir.list_tree(w, listdir.TreeRequest("."))),
    ("glob.glob_paths", "glob", lambda w: glob.glob_paths(w, glob.GlobRequest("*.txt"))),
    ("grep.grep", "grep", lambda w: grep.grep(w, grep.GrepRequest("a"))),
    ("read.read_bytes", "read", lambda w: read.read_bytes(w, read.ReadRequest("a.txt"))),
    ("read.read_text", "read", lambda w: read.read_text(w, read.ReadRequest("a.txt"))),
    ("read.fingerprint", "read", lambda w: read.fingerprint(w, read.ReadRequest("a.txt"))),
    ("window.read_window", "read", lambda w: window.read_window(w, window.WindowRequest("a.txt", 0, 1, 100))),
    ("write.write_text", "write", lambda w: write.write_text(w, write.WriteRequest("b.txt", "x\n"))),
    ("write.write_text", "edit", lambda w: write.write_text(w, write.WriteRequest("a.txt", "x\n", op="edit"))),
    ("write.append_text", "write", lambda w: write.append_text(w, write.AppendRequest("a.txt", "x\n"))),
    ("write.append_text", "edit", lambda w: write.append_text(w, write.AppendRequest("a.txt", "x\n"))),
    ("lines.edit_lines", "write", lambda w: lines.edit_lines(w, lines.LineEditRequest("a.txt", 1, 1, "x\n"))),
    ("lines.edit_lines", "edit", lambda w: lines.edit_lines(w, lines.LineEditRequest("a.txt", 1, 1, "x\n"))),
    ("partedit.edit_part", "write", lambda w: partedit.edit_part(w, A_PART)),
    ("partedit.edit_part", "edit", lambda w: partedit.edit_part(w, A_PART)),
    ("apply.apply", "write", lambda w: apply.apply(w, apply.ApplyRequest((FileChange("b.txt", b"x\n"),)))),
    ("apply.apply", "edit",
     lambda w: apply.apply(w, apply.ApplyRequest((FileChange("a.txt", b"x\n"),), op="edit"))),
    ("apply.apply", "delete", lambda w: apply.apply(w, apply.ApplyRequest((FileChange("a.txt", None),)))),
    ("apply.apply", "patch", lambda w: apply.apply(w, apply.ApplyRequest((), patches=(A_TO_X,)))),
    ("revert.revert", "revert", lambda w: revert.revert(w, revert.RevertRequest(1))),
    ("revert.revert", "write", lambda w: revert.revert(w, revert.RevertRequest(1))),
    ("revert.undo", "revert", lambda w: revert.undo(w, revert.UndoRequest("main"))),
    ("revert.undo", "write", lambda w: revert.undo(w, revert.UndoRequest("main"))),
    ("revert.skip", "revert", lambda w: revert.skip(w, revert.UndoRequest("main"))),
    ("revert.skip", "write", lambda w: revert.skip(w, revert.UndoRequest("main"))),
    ("replace.replace_in_file", "write",
     lambda w: replace.replace_in_file(w, replace.ReplaceRequest("a.txt", (("a", "x"),)))),
    ("replace.replace_in_file", "edit",
     lambda w: replace.replace_in_file(w, replace.ReplaceRequest("a.txt", (("a", "x"),)))),
    ("mkdir.mkdir", "mkdir", lambda w: mkdir.mkdir(w, mkdir.MkdirRequest("new"))),
    ("move.move", "move", lambda w: move.move(w, move.MoveRequest("a.txt", "moved.txt"))),
    ("copy.copy_file", "write", lambda w: copy.copy_file(w, copy.CopyRequest("a.txt", "copied.txt"))),
    ("copy.copy_folder", "write", lambda w: copy.copy_folder(w, copy.FolderCopyRequest("d", "copied"))),
    ("delete.delete", "delete", lambda w: delete.delete(w, delete.DeleteRequest("a.txt"))),
    ("shell.run_once", "shell", lambda w: shell.run_once(w, shell.ShellRequest("touch ran", "main"))),
    ("shell.run_in_topic_shell", "shell",
     lambda w: shell.run_in_topic_shell(w, shell.ShellRequest("touch ran", "main"), Slot())),
    ("streams.exec_streams", "shell",
     lambda w: streams.exec_streams(w, streams.StreamsRequest("touch ran", "main"))),
    ("actionrun.run_action", "shell",
     lambda w: actionrun.run_action(w, actionrun.ActionRequest("touch ran", (), w.root, {}, "act.t: touch ran"))),
]

#: Ops that change files, and the permission a read_only root refuses them by.
READ_ONLY: list[tuple[str, str]] = [
    ("write.write_text", "write"), ("write.append_text", "write"), ("lines.edit_lines", "write"),
    ("partedit.edit_part", "write"),
    ("apply.apply", "write"), ("replace.replace_in_file", "write"),
    ("revert.revert", "revert"), ("revert.undo", "revert"), ("revert.skip", "revert"),
    ("mkdir.mkdir", "mkdir"), ("move.move", "move"), ("copy.copy_file", "write"), ("copy.copy_folder", "write"),
    ("delete.delete", "delete"),
]


def op_entries() -> set[str]:
    """Every op module's entry functions: public `f(ws, request: <Name>Request, ...)` defined in the module."""
    found = set()
    for info in pkgutil.iter_modules(ops_package.__path__):
        module = importlib.import_module(f"{ops_package.__name__}.{info.name}")
        for name, func in vars(module).items():
            if name.startswith("_") or not inspect.isfunction(func) or func.__module__ != module.__name__:
                continue
            params = list(inspect.signature(func).parameters.values())
            if len(params) >= 2 and params[0].name == "ws" and str(params[1].annotation).endswith("Request"):
                found.add(f"{info.name}.{name}")
    return found


def test_every_op_has_a_refusal_case() -> None:
    assert op_entries() == {entry for entry, _, _ in CASES}
    changing = {entry for entry, flag, _ in CASES if flag in ("write", "edit", "delete", "patch", "mkdir", "move",
                                                               "revert")}
    assert changing == {entry for entry, _ in READ_ONLY}


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every path under the workspace with its bytes (None: a folder)."""
    return {p.relative_to(root).as_posix(): None if p.is_dir() else p.read_bytes() for p in sorted(root.rglob("*"))}


def prepared(root: Path) -> list[int]:
    """A file to act on and one change (id 1) to revert or undo; the journal's change ids."""
    (root / "a.txt").write_text("a\nb\n")
    allowed = Workspace(root)
    try:
        allowed.write_text("c.txt", "c\n")
        return [row.id for row in allowed.history()]
    finally:
        allowed.close()


def refused(root: Path, policy: Policy, call: Call) -> StringError:
    """The refusal `call` gets under `policy`; nothing on disk or in the journal may change."""
    journal = prepared(root)
    before = snapshot(root)
    workspace = Workspace(root, policy)
    try:
        with pytest.raises(StringError) as caught:
            call(workspace)
    finally:
        workspace.close()
    after = Workspace(root)
    try:
        assert [row.id for row in after.history()] == journal
    finally:
        after.close()
    assert snapshot(root) == before
    return caught.value


@pytest.mark.parametrize(("entry", "flag", "call"), CASES, ids=[f"{e}-{f}" for e, f, _ in CASES])
def test_an_op_called_directly_refuses_when_its_permission_is_off(tmp_path: Path, entry: str, flag: str,
                                                                   call: Call) -> None:
    policy = Policy.default(tmp_path)
    error = refused(tmp_path, policy._replace(permissions=Permissions()._replace(**{flag: False})), call)
    assert (error.code, error.message) == ("NOT_PERMITTED", f"{flag} is disabled by policy"), entry


@pytest.mark.parametrize(("entry", "named"), READ_ONLY, ids=[e for e, _ in READ_ONLY])
def test_an_op_called_directly_refuses_in_a_read_only_root(tmp_path: Path, entry: str, named: str) -> None:
    policy = Policy.default(tmp_path)
    policy = policy._replace(roots=(policy.root._replace(mode="read_only"),))
    calls = [call for e, _, call in CASES if e == entry]
    for call in calls:
        error = refused(tmp_path, policy, call)
        assert (error.code, error.message) == ("NOT_PERMITTED", f"{named} is not allowed: root main is read_only")
