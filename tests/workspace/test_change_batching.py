"""A 100-file change set: written batched, and all-or-nothing when killed at any point.

The order of the durable steps is read from the real syscalls (strace): every temp file, the journal's
WAL and the blob file keeping the big file's previous bytes (with its folder) are fsynced before the first
rename, the WAL exactly once (one sealed journal commit), each folder is fsynced once after the renames, and
the writer never runs a WAL checkpoint (it happens on a worker thread, checkpoint.py). The crash half kills a
child at five points of an apply and of a revert; recovery then leaves every file as before or as after the
change set, never a mix, with nothing pending and no temp file."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from stringsh.workspace import Workspace
from tests.conftest import unavailable
from tests.workspace.batching_child import make_tree

REPO = Path(__file__).resolve().parents[2]
CHILD = Path(__file__).with_name("batching_child.py")
ROUNDS = 8  # enough fresh previous bytes (8 x 95 x 4 KiB) for SQLite's automatic checkpoint to fall due
CALL = re.compile(r"^(\d+) +(\w+)\((\d+<([^>]*)>|\"([^\"]*)\")(.*?)( <unfinished \.\.\.>)?$")
RESUMED = re.compile(r"^(\d+) +<\.\.\. (\w+) resumed>")
SYNCS = ("fsync", "fdatasync")
POINTS = ["seal", "first_rename", "mid_renames", "dir_fsyncs", "finish"]


def child_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": f"{REPO}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}


def files_hash(root: Path) -> dict[str, str]:
    """Every regular file under root (outside `.stringsh`): content and mode."""
    seen = {}
    for path in root.rglob("*"):
        if path.is_file() and not path.is_symlink() and ".stringsh" not in path.relative_to(root).parts:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            seen[path.relative_to(root).as_posix()] = f"{path.stat().st_mode:o}:{digest}"
    return seen


def trace(root: Path, out: Path) -> tuple[int, list[tuple[int, str, str, str]]]:
    """Run the child's apply/revert rounds under strace; returns its pid and the events in completion order:
    (tid, call, path or folder, the temp file a rename renamed)."""
    done = subprocess.run(
        ["strace", "-f", "-y", "-o", str(out), "-e",
         "trace=fsync,fdatasync,renameat,renameat2,rename,access,faccessat,faccessat2",
         sys.executable, str(CHILD), str(root), "trace", str(ROUNDS)],
        capture_output=True, text=True, env=child_env(), timeout=300,
    )
    if done.returncode != 0 and "ptrace" in done.stderr:
        unavailable(f"strace cannot trace here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    pid = int(done.stdout.split()[0])
    events: list[tuple[int, str, str, str]] = []
    pending: dict[int, tuple[int, str, str, str]] = {}
    for line in out.read_text().splitlines():
        if match := RESUMED.match(line):
            tid = int(match[1])
            if tid in pending:
                events.append(pending.pop(tid))
            continue
        match = CALL.match(line)
        if match is None:
            continue
        tid, call = int(match[1]), match[2]
        path = match[4] or match[5] or ""
        name = re.findall(r'"([^"]*)"', match[6])[0] if call.startswith("rename") else ""
        event = (tid, "rename" if call.startswith("rename") else call, path, name)
        if call.startswith("rename"):
            events.append(event)  # ordered by its start: no rename may begin before the fsyncs it needs end
        elif match[7]:
            pending[tid] = event
        else:
            events.append(event)
    return pid, events


def window(events: list[tuple[int, str, str, str]], start: str, end: str) -> list[tuple[int, str, str, str]]:
    labels = [e[2] for e in events]
    return events[labels.index(f"/stringsh-mark-{start}") + 1 : labels.index(f"/stringsh-mark-{end}")]


@pytest.mark.needs("strace")
def test_a_100_file_change_set_is_written_batched(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    make_tree(root)
    real = str(root.resolve())
    pid, events = trace(root, tmp_path / "strace.txt")
    for k in range(ROUNDS):
        for start, end, written in ((f"apply-{k}", f"revert-{k}", 95), (f"revert-{k}", f"end-{k}", 95)):
            steps = window(events, start, end)
            renames = [n for n, e in enumerate(steps) if e[1] == "rename"]
            assert len(renames) == written, (start, len(renames))
            first, last = renames[0], renames[-1]
            temps = [e[2] for e in steps[:first] if e[1] in SYNCS and "/.~stringsh-" in e[2]]
            renamed = [f"{steps[n][2]}/{steps[n][3]}" for n in renames]
            assert sorted(temps) == sorted(renamed), start  # each temp fsynced once, all before the first rename
            # One journal commit, sealed once before any rename (`seal` fsyncs; SQLite's own syncs are fdatasync:
            # the WAL header once after each checkpoint, and a checkpoint's database sync).
            wal = [e for e in steps[:first] if e[1] == "fsync" and e[2].endswith("journal.db-wal") and e[0] == pid]
            assert len(wal) == 1, (start, wal)
            # The big file's previous bytes went to a blob file: it and its folder are durable before any rename.
            synced = [e[2] for e in steps[:first] if e[1] == "fsync" and "/blobs" in e[2]]
            folder = [p for p in synced if p.endswith("/blobs")]
            assert len(folder) == 1 and [p.rsplit("/", 1)[0] for p in synced if p not in folder] == folder, synced
            assert not [e for e in steps if e[0] == pid and e[1] in SYNCS and e[2].endswith("journal.db")], start
            assert not [e for e in steps[first:last] if e[1] in SYNCS and e[2].startswith(real)], start
            if start.startswith("apply"):
                folders = [e[2] for e in steps[last:] if e[1] in SYNCS and e[2].startswith(real)]
                expected = [real, f"{real}/a", f"{real}/b/c", f"{real}/new", f"{real}/new/deep"]
                assert sorted(folders) == expected, (start, folders)  # each folder once, after the renames


def run_child(root: Path, op: str, point: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(CHILD), str(root), "crash", op, point], capture_output=True,
                          text=True, env=child_env(), timeout=120)


@pytest.fixture(scope="module")
def states(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, str], dict[str, str]]:
    """The files before and after the 100-file change set, from a child that was not killed."""
    root = tmp_path_factory.mktemp("reference")
    make_tree(root)
    before = files_hash(root)
    finished = run_child(root, "apply", "never")
    assert finished.returncode == 0 and finished.stdout == "finished\n", finished.stderr
    return before, files_hash(root)


@pytest.mark.parametrize("op", ["apply", "revert"])
@pytest.mark.parametrize("point", POINTS)
def test_a_100_file_change_set_killed_at_any_point_is_all_or_nothing(
    tmp_path: Path, op: str, point: str, states: tuple[dict[str, str], dict[str, str]]
) -> None:
    before, after = states if op == "apply" else states[::-1]
    root = tmp_path / "ws"
    root.mkdir()
    make_tree(root)
    crashed = run_child(root, op, point)
    assert crashed.returncode == 137, crashed.stderr
    if point == "mid_renames":
        assert files_hash(root) not in (before, after)  # killed with some of the files replaced
    workspace = Workspace.load(root)
    try:
        assert workspace.journal.pending() == []
        state = files_hash(root)
        assert state == (before if point in ("seal", "first_rename", "mid_renames") else after)
        assert not [p for p in root.rglob("*") if p.name.startswith(".~stringsh-")]
        if op == "apply" and state == after:  # rolled forward: still undone byte for byte
            change = workspace.history(1)[0]
            assert change.state == "done"
            workspace.revert(change.id)
            assert files_hash(root) == before
    finally:
        workspace.close()
