"""Concurrent writers cannot lose an update: two processes, and two topics of one dispatcher on threads."""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from stringsh.dispatcher import Dispatcher
from stringsh.workspace import WholeFile, Workspace

REPO = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).with_name("worker.py")
ROUNDS = 40


def run_pair(root: Path, mode: str) -> list[int]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = [
        subprocess.Popen([sys.executable, str(WORKER), str(root), mode, name, str(ROUNDS)],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True)
        for name in ("alpha", "beta")
    ]
    for proc in procs:
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    conflicts = []
    for proc in procs:
        out, _ = proc.communicate(timeout=120)
        assert proc.returncode == 0
        conflicts.append(int(out.split()[-1]))
    return conflicts


@pytest.mark.parametrize("mode", ["write_text", "apply"])
def test_two_processes_incrementing_one_file_lose_nothing(tmp_path: Path, mode: str) -> None:
    (tmp_path / "counter.txt").write_text("0")
    run_pair(tmp_path, mode)
    assert (tmp_path / "counter.txt").read_text() == str(2 * ROUNDS)
    workspace = Workspace(tmp_path)
    assert len([row for row in workspace.history(1000) if row.state == "done"]) == 2 * ROUNDS
    assert workspace.verify_audit().ok  # both processes appended to one unbroken chain
    workspace.close()


def test_two_processes_appending_keep_every_line(tmp_path: Path) -> None:
    (tmp_path / "log.txt").write_text("")
    run_pair(tmp_path, "append")
    lines = (tmp_path / "log.txt").read_text().splitlines()
    assert sorted(lines) == sorted(f"{name} {i}" for name in ("alpha", "beta") for i in range(ROUNDS))


def test_stale_expected_hash_is_a_conflict_and_writes_nothing(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    first = workspace.write_text("f.txt", "one\n")
    workspace.write_text("f.txt", "two\n")
    from stringsh.errors import StringError

    with pytest.raises(StringError) as caught:
        workspace.write_text("f.txt", "three\n", guard=WholeFile(first.sha256))
    assert caught.value.code == "CONFLICT"
    assert caught.value.message == "f.txt changed since it was read; nothing was written."
    assert (tmp_path / "f.txt").read_text() == "two\n"
    workspace.close()


def test_two_topics_on_threads_appending_and_undoing_their_own_changes(tmp_path: Path) -> None:
    (tmp_path / "shared.md").write_text("start\n")
    dispatcher = Dispatcher(tmp_path)

    def work(topic: str) -> None:
        for i in range(25):
            assert dispatcher.execute(f"/append shared.md\n{topic} {i}\n", topic=topic).ok
            assert dispatcher.execute(f"/write {topic}.md\n{topic} {i}\n", topic=topic).ok

    with ThreadPoolExecutor(2) as pool:  # result() re-raises a failed assert of either thread here
        for done in [pool.submit(work, topic) for topic in ("left", "right")]:
            done.result()
    lines = (tmp_path / "shared.md").read_text().splitlines()
    assert len(lines) == 51 and lines[0] == "start"
    # Undo in "left" walks back its own /write first; the shared file changed since, so its appends conflict.
    assert dispatcher.execute("/undo", topic="left").text == "re: /undo\nUndo: reverted left.md (1 line)"
    assert (tmp_path / "left.md").read_text() == "left 23\n"
    check = dispatcher.workspace.verify_audit()
    assert check.ok and check.records >= 101, check
    dispatcher.close()
