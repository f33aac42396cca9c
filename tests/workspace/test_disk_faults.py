"""Faults degrade, never stop: a full workspace, a full or read-only state folder, a lock held too long and a
rename that fails half-way, on real size-limited tmpfs mounts (mounted here as root, as CI runs; skipped with
the notice elsewhere). Each refusal is coded (NO_SPACE, READ_ONLY, BUSY), leaves every file and the journal as
they were, and goes away without a restart once the condition clears."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import shlex
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from stringsh.dialects.tools.cli import answer
from stringsh.dispatcher import Dispatcher
from stringsh.errors import StringError
from stringsh.workspace import ChangeSet, Workspace, atomic
from stringsh.workspace.journalrows import FileRow
from stringsh.workspace.state import state_folder
from tests.conftest import run_stringsh


@contextmanager
def opened(root: Path) -> Iterator[Workspace]:
    workspace = Workspace(root)
    try:
        yield workspace
    finally:
        workspace.close()


@contextmanager
def tmpfs(point: Path, size: str) -> Iterator[Path]:
    """A real tmpfs of `size` at `point`, unmounted (lazily: a test's open descriptors may still hold it) after."""
    point.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(point)], check=True)
    try:
        yield point
    finally:
        subprocess.run(["umount", "-l", str(point)], check=False)


def fill(point: Path) -> None:
    """Fill the file system at `point` to the last page (a `filler` file)."""
    fd = os.open(point / "filler", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (65536, 4096, 1):
            with pytest.raises(OSError) as full:
                while True:
                    os.write(fd, b"\0" * size)
            assert full.value.errno == errno.ENOSPC
    finally:
        os.close(fd)


def no_space(path: str, kb: int, mount: Path) -> str:
    return (f"ERROR(NO_SPACE): No space left: {path} needs about {kb} KB more on {mount}; nothing was written.\n"
            f"Free some space on {mount} (df -h {mount} shows what is left), then retry; reads still work.")


def audit_outcomes(root: Path) -> list[str]:
    log = state_folder(root) / "audit.log"
    return [json.loads(line)["outcome"] for line in log.read_text().splitlines()]


@pytest.mark.needs("tmpfs")
def test_a_full_workspace_refuses_every_write_with_no_space_and_keeps_every_byte(tmp_path: Path) -> None:
    with tmpfs(tmp_path / "ws", "256k") as root:
        (root / "a.md").write_text("# s\n\nold\n")
        (root / "b.md").write_text("b\n")
        d = Dispatcher(root)
        try:
            assert d.execute("/append b.md\nfirst\n").text == "re: /append b.md\nAppended to: b.md (now 8 bytes)"
            fill(root)
            before = {name: (root / name).read_bytes() for name in ("a.md", "b.md")}
            big = "y" * 30000  # 30,001 bytes with its newline: about 30 KB
            assert d.execute(f"/append a.md\n{big}\n").text == "re: /append a.md\n" + no_space("a.md", 30, root)
            assert d.execute(f"/write c.md\n{'z' * 5000}\n").text == "re: /write c.md\n" + no_space("c.md", 5, root)
            assert d.execute("/edit a.md#s\nnew\n").text == "re: /edit a.md#s\n" + no_space("a.md", 1, root)
            patch = "--- a/a.md\n+++ b/a.md\n@@ -3 +3 @@\n-old\n+new\n--- a/b.md\n+++ b/b.md\n@@ -1 +1 @@\n-b\n+c\n"
            assert d.execute(f"/patch\n{patch}").text == "re: /patch\n" + no_space("a.md", 1, root)
            # the JSON tools dialect: the same refusal in its shape
            request = json.dumps({"id": 1, "tool": "write", "args": {"file_path": "c.md", "content": "z" * 5000}})
            text = no_space("c.md", 5, root).removeprefix("ERROR(NO_SPACE): ").split("\n")
            assert answer(d.workspace, request.encode()) == {"id": 1, "ok": False, "code": "NO_SPACE",
                                                            "error": text[0], "hint": text[1]}
            assert {name: (root / name).read_bytes() for name in ("a.md", "b.md")} == before
            assert sorted(os.listdir(root)) == [".stringsh", "a.md", "b.md", "filler"]  # no temp file left
            assert d.execute("/open a.md").text == "re: /open a.md\nOpened a.md\n---\n# s\n\nold"  # reads go on
            journal = d.workspace.journal
            assert journal.pending() == []
            assert [c.state for c in journal.history(10)] == ["rolled_back"] * 5 + ["done"]
            assert d.workspace.state.read_only is None  # the workspace is full, not the state: nothing degraded
            d.workspace.state.flush_records()
            assert audit_outcomes(root)[-6:] == ["NO_SPACE"] * 5 + ["ok"]  # every refusal recorded
            (root / "filler").unlink()
            assert d.execute(f"/append a.md\n{big}\n").text == "re: /append a.md\nAppended to: a.md (now 30010 bytes)"
            subprocess.run(["mount", "-o", "remount,ro", str(root)], check=True)
            assert d.execute("/write a.md\nnew\n").text == (
                f"re: /write a.md\nERROR(READ_ONLY): Read-only file system: a.md is on {root}; nothing was written.\n"
                "Remount it read-write (or work on a copy elsewhere), then retry; reads still work.")
            assert len((root / "a.md").read_bytes()) == 30010
        finally:
            d.close()


@pytest.mark.needs("tmpfs")
def test_a_full_state_folder_starts_read_only_and_the_next_change_after_freeing_works(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real `run` session: it starts (one stderr line says why changes are refused), reads, lists, searches,
    shows help, refuses the change with NO_SPACE, then, space freed mid-session, changes and undoes."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.md").write_text("hi\n")
    with tmpfs(tmp_path / "state", "1m") as state:
        monkeypatch.setenv("STRINGSH_STATE_DIR", str(state))
        with opened(root) as ws:  # a journal and an audit log already there
            ws.append_text("a.md", "one\n")
        fill(state)
        script = ("/ls\n/open a.md\n/grep one\n/help errors\n/append a.md <<EOF\ntwo\nEOF\n"
                  f"!rm {shlex.quote(str(state / 'filler'))}\n/append a.md <<EOF\ntwo\nEOF\n/undo\n")
        (tmp_path / "script.txt").write_text(script)
        done = run_stringsh(["--no-sandbox", "run", "--keep-going", str(tmp_path / "script.txt")], cwd=root)
        out, err = done.stdout.decode(), done.stderr.decode()
        journal = state / "workspaces" / os.listdir(state / "workspaces")[0] / "journal.db"
        assert (f"stringsh: read-only: no space left for the journal on {state}; reading works, changes are "
                "refused until that clears\n") in err
        assert "re: /ls\nListing ./\n---\n  a.md\n" in out
        assert "re: /grep one\nGrep \"one\" in ./: 1 match in 1 file\n" in out
        assert "\nNO_SPACE " in out and "\nREAD_ONLY " in out and "\nIO_ERROR " in out  # /help errors lists them
        assert ("re: /append a.md\nERROR(NO_SPACE): No space left: the change journal "
                f"{journal} needs about 64 KB more on {state}; nothing was written.\n") in out
        assert "re: /append a.md\nAppended to: a.md (now 11 bytes)\n" in out
        assert "re: /undo\nUndo: reverted a.md (2 lines)" in out
        assert (root / "a.md").read_text() == "hi\none\n"
        # the refusal is in the audit log, or stderr says the log could not take it
        assert "NO_SPACE" in (journal.parent / "audit.log").read_text() or "audit log could not record" in err


def _half_applied(root: Path) -> None:
    """A crash in the middle of a two-file change set: pending in the journal, only b.md replaced."""
    with opened(root) as ws:
        ws.append_text("a.md", "x\n")  # the journal exists, settled
        old = {name: (root / name).read_bytes() for name in ("a.md", "b.md")}
        rows = [FileRow(i, name, atomic.sha256(old[name]), atomic.sha256(b"new\n"), 0o644, 0o644)
                for i, name in enumerate(("a.md", "b.md"))]
        ws.journal.begin("main", "string", "apply", None, rows, {atomic.sha256(v): v for v in old.values()})
        (root / "b.md").write_bytes(b"new\n")  # killed here: a.md still old


@pytest.mark.needs("tmpfs")
def test_a_read_only_state_folder_reads_refuses_then_recovers_the_pending_change_set(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.md").write_text("a\n")
    (root / "b.md").write_text("b\n")
    with tmpfs(tmp_path / "state", "1m") as state:
        monkeypatch.setenv("STRINGSH_STATE_DIR", str(state))
        _half_applied(root)
        folder = state_folder(root)
        subprocess.run(["mount", "-o", "remount,ro", str(state)], check=True)
        ws = Workspace.load(root)  # starts: recovery is due but cannot be recorded
        try:
            assert ws.state.read_only == f"the state folder {folder} is on a read-only file system"
            assert ws.read_text("a.md").text == "a\nx\n"
            with pytest.raises(StringError) as refused:
                ws.append_text("a.md", "y\n")
            assert (refused.value.code, refused.value.text) == (
                "READ_ONLY", f"Read-only file system: the state file {folder / 'lock'} is on {state}; nothing was "
                "written.\nRemount it read-write (or work on a copy elsewhere), then retry; reads still work.")
            subprocess.run(["mount", "-o", "remount,rw", str(state)], check=True)
            ws.append_text("a.md", "y\n")  # no restart: the crashed change set is rolled back first
            assert ws.state.read_only is None
            assert (root / "a.md").read_text() == "a\nx\ny\n"
            assert (root / "b.md").read_text() == "b\n"
            assert [c.state for c in ws.history(3)] == ["done", "rolled_back", "done"]
        finally:
            subprocess.run(["mount", "-o", "remount,rw", str(state)], check=False)
            ws.close()


def test_a_lock_held_too_long_refuses_with_busy_then_clears(ws: Path) -> None:
    (ws / "a.md").write_text("a\n")
    with opened(ws) as workspace:
        workspace.append_text("a.md", "1\n")
        workspace.state.lock_wait = 0.2
        other = os.open(workspace.state.path / "lock", os.O_RDWR)  # another process's hold: its own open file
        try:
            fcntl.flock(other, fcntl.LOCK_EX)
            with pytest.raises(StringError) as refused:
                workspace.append_text("a.md", "2\n")
            assert refused.value.code == "BUSY"
            assert refused.value.message == (f"Another process has held the workspace lock {workspace.state.path}"
                                             "/lock for over 0.2 s; nothing was written.")
            assert workspace.state.read_only == "the workspace is locked by another process"
            assert workspace.read_text("a.md").text == "a\n1\n"
        finally:
            os.close(other)
        workspace.append_text("a.md", "2\n")
        assert workspace.state.read_only is None
        assert (ws / "a.md").read_text() == "a\n1\n2\n"


def lock_waits(settle: float = 0.0) -> list[threading.Thread]:
    """The threads waiting for the workspace lock; with `settle`, those still there after joining that long (a
    wait that handed the lock over ends a moment after the change it woke)."""
    waits = [thread for thread in threading.enumerate() if thread.name == "stringsh-lock-wait"]
    for thread in waits:
        thread.join(settle)
    return [thread for thread in waits if thread.is_alive()]


def test_a_wait_given_up_leaves_the_lock_free_and_the_next_change_takes_up_the_same_wait(ws: Path) -> None:
    """The flock a BUSY change gave up on is still being waited for in a thread (flock cannot time out). A second
    change while the other process holds on joins that wait, not a new one; once it lets go, that change lands;
    and a wait nobody wants any more lets the lock go the moment it gets it, so a third process can take it."""
    (ws / "a.md").write_text("a\n")
    with opened(ws) as workspace:
        workspace.append_text("a.md", "1\n")
        workspace.state.lock_wait = 0.2
        other = os.open(workspace.state.path / "lock", os.O_RDWR)
        fcntl.flock(other, fcntl.LOCK_EX)
        for _ in range(2):
            with pytest.raises(StringError) as refused:
                workspace.append_text("a.md", "2\n")
            assert refused.value.code == "BUSY"
            assert len(lock_waits()) == 1
        workspace.state.lock_wait = 30
        landed = threading.Thread(target=workspace.append_text, args=("a.md", "2\n"))
        landed.start()
        fcntl.flock(other, fcntl.LOCK_UN)
        landed.join(30)
        assert (ws / "a.md").read_text() == "a\n1\n2\n"
        assert lock_waits(settle=30) == []
        fcntl.flock(other, fcntl.LOCK_EX)
        workspace.state.lock_wait = 0.2
        with pytest.raises(StringError):
            workspace.append_text("a.md", "3\n")
        os.close(other)  # let go with the wait unwanted: it takes the lock, lets it go and ends
        assert lock_waits(settle=30) == []
        third = os.open(workspace.state.path / "lock", os.O_RDWR)
        try:
            fcntl.flock(third, fcntl.LOCK_EX | fcntl.LOCK_NB)  # free: the given-up wait kept nothing
        finally:
            os.close(third)
        assert (ws / "a.md").read_text() == "a\n1\n2\n"


@pytest.mark.parametrize(("code", "number", "message"), [
    ("NO_SPACE", errno.ENOSPC, "No space left: a.md needs about 1 KB more on "),
    ("READ_ONLY", errno.EROFS, "Read-only file system: a.md is on "),
    ("IO_ERROR", errno.EIO, "Input/output error on a.md; nothing was written."),
])
def test_a_rename_that_fails_half_way_puts_every_file_back(ws: Path, monkeypatch: pytest.MonkeyPatch, code: str,
                                                           number: int, message: str) -> None:
    """The disk fails at the second of three renames (a fault injected where no real disk fails on cue): the first
    file is put back, the journal rolls the change set back, the reply is the condition's code."""
    for name in ("a", "b", "c"):
        (ws / f"{name}.md").write_text(f"{name}\n")
    renames: list[str] = []
    real = atomic.commit

    def commit(dir_fd: int, tmp: str, name: str) -> None:
        renames.append(name)
        if len(renames) == 2:
            raise OSError(number, os.strerror(number))
        real(dir_fd, tmp, name)

    with opened(ws) as workspace:
        monkeypatch.setattr(atomic, "commit", commit)
        with pytest.raises(StringError) as refused:
            workspace.apply(ChangeSet().write("a.md", b"A\n").write("b.md", b"B\n").write("c.md", b"C\n"))
        monkeypatch.undo()
        assert refused.value.code == code
        assert refused.value.message.startswith(message)
        assert [(ws / f"{n}.md").read_text() for n in "abc"] == ["a\n", "b\n", "c\n"]
        assert sorted(os.listdir(ws)) == [".stringsh", "a.md", "b.md", "c.md"]
        assert [c.state for c in workspace.history(1)] == ["rolled_back"]
        assert workspace.journal.pending() == []


def test_the_users_policy_puts_the_state_elsewhere_and_a_workspace_policy_cannot(ws: Path, tmp_path: Path) -> None:
    """`[journal] state_dir` in the user's own policy moves the journal and audit log (a container with a
    read-only home points it at a volume); the same key in the workspace's stringsh.toml is ignored and said."""
    from stringsh.userdirs import user_policy_file
    from stringsh.workspace.layers import load_policy
    from stringsh.workspace.state import state_key

    (ws / "a.md").write_text("a\n")
    (ws / "stringsh.toml").write_text(f'[journal]\nstate_dir = "{tmp_path / "planted"}"\n')
    policy = load_policy(ws)
    assert (policy.state_dir, policy.ignored) == ("", ("journal.state_dir",))
    elsewhere = tmp_path / "volume"
    user_policy_file().parent.mkdir(parents=True)
    user_policy_file().write_text(f'[journal]\nstate_dir = "{elsewhere}"\n')
    done = run_stringsh(["-c", "/append a.md b"], cwd=ws, env={"STRINGSH_STATE_DIR": ""})
    assert done.stdout.decode() == "re: /append a.md b\nAppended to: a.md (now 4 bytes)\n"
    folder = elsewhere / "workspaces" / state_key(ws.resolve())
    assert sorted(name for name in os.listdir(folder) if name.startswith(("journal.db", "audit.log"))) == [
        "audit.log", "journal.db"]
    assert not (tmp_path / "planted").exists()
