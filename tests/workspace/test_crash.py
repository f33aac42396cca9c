"""Crash test: a real child applying multi-file change sets is killed with SIGKILL at random moments, many
times. After recovery every file holds the bytes of the newest finished change set (never a mix), no change
the child reported is lost, nothing stays pending and no temp file is left behind. A kill inside a change set
always leaves the `recovery-due` marker, and the first few such kills are recovered by a real `stringsh -c /ls`,
the lightest start there is."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from stringsh.workspace import Workspace, atomic
from stringsh.workspace.changes import sha256
from stringsh.workspace.journalfile import RECOVERY_MARKER
from stringsh.workspace.state import state_folder

REPO = Path(__file__).resolve().parents[2]
CHILD = Path(__file__).with_name("crash_child.py")
KILLS = 30
BUDGET_S = 20.0
#: How many kills inside a change set a real `stringsh -c /ls` recovers (the others: Workspace.load, in-process).
DASH_C_RECOVERIES = 3


def current_sha(path: Path) -> str | None:
    return sha256(path.read_bytes()) if path.exists() else None


def dash_c_ls(root: Path) -> None:
    """What a person or agent runs next: the lightest start, which must still recover first."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-m", "stringsh", "-c", "/ls"], cwd=root, env=env, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.startswith("re: /ls\n"), proc.stdout + proc.stderr


def check(root: Path, reported: set[int], outcomes: dict[str, int]) -> None:
    marker = state_folder(root) / RECOVERY_MARKER
    workspace = Workspace(root)  # no start-up recovery: what the kill left, as it is
    try:
        pending = workspace.journal.pending()
        for change in pending:
            files = workspace.journal.files(change)
            after = all(current_sha(root / f.path) == f.new_sha for f in files)
            before = all(current_sha(root / f.path) == f.prev_sha for f in files)
            key = "pending-after" if after else "pending-before" if before else "pending-mixed"
            outcomes[key] = outcomes.get(key, 0) + 1
    finally:
        workspace.close()
    assert marker.exists() or not pending, "a change set in flight without the recovery-due marker"
    if pending and outcomes.get("by -c /ls", 0) < DASH_C_RECOVERIES:
        dash_c_ls(root)
        outcomes["by -c /ls"] = outcomes.get("by -c /ls", 0) + 1
        workspace = Workspace(root)
    else:
        workspace = Workspace.load(root)  # any command's start
    try:
        assert not marker.exists()
        journal = workspace.journal
        assert journal.pending() == []
        for change in reported:
            row = journal.get(change)
            assert row is not None and row.state == "done", (change, row)
        done = [row for row in journal.history(100_000) if row.state == "done"]
        if not done:
            return
        newest = max(done, key=lambda row: row.id)
        for file in journal.files(newest.id):
            assert current_sha(root / file.path) == file.new_sha, (newest, file.path)
        leftovers = [p for p in root.rglob("*") if p.name.startswith(atomic.TEMP_PREFIX)]
        assert leftovers == []
    finally:
        workspace.close()


def test_sigkill_at_random_moments_never_leaves_a_mixed_state(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    rng = random.Random(20261122)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    reported: set[int] = set()
    started = time.monotonic()
    kills = 0
    gen = 0
    outcomes: dict[str, int] = {}
    while kills < KILLS and (kills < 8 or time.monotonic() - started < BUDGET_S):
        child = subprocess.Popen(
            [sys.executable, str(CHILD), str(root), str(gen)], stdout=subprocess.PIPE, env=env, text=True
        )
        assert child.stdout is not None
        assert child.stdout.readline() == "ready\n"
        # one change done before the random moment, so a loaded machine cannot starve the child between kills
        early = [child.stdout.readline()]
        while early[-1] and not early[-1].startswith("done "):
            early.append(child.stdout.readline())
        time.sleep(rng.uniform(0.0, 0.12))
        child.send_signal(signal.SIGKILL)
        child.wait()
        for line in [*early, *child.stdout.read().splitlines()]:
            if line.startswith("done "):
                reported.add(int(line.split()[1]))
        child.stdout.close()
        kills += 1
        gen += 1000
        check(root, reported, outcomes)
    print("crash outcomes", kills, "kills,", len(reported), "changes,", outcomes)
    assert kills >= 8
    assert sum(outcomes.values()) >= 1  # some kills landed inside a change set (typically most of them)
    assert len(reported) >= kills  # the child got real work done between kills (a change or more each time)
