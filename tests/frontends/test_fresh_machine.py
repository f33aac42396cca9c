"""The README's test command on a machine with only Python (no bwrap, no git).

The sandbox tests run the suite itself (a child pytest) with a PATH that lacks bwrap: a newcomer's run passes and
says in one line what it skipped and how to include it; where CI=true the same run fails loudly.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NOTICE = (
    "stringsh: 10 tests skipped, tools not installed: 10 need bwrap (`apt-get install -y bubblewrap`); "
    "with CI=true they fail"
)


def path_without(tmp_path: Path, *missing: str) -> str:
    """A PATH folder holding a link to every program on today's PATH except `missing`."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        if not os.path.isdir(directory):
            continue
        for name in os.listdir(directory):
            link = folder / name
            if name not in missing and not link.exists() and not link.is_symlink():
                link.symlink_to(os.path.join(directory, name))
    return str(folder)


def child_pytest(tmp_path: Path, ci: str | None) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if key != "CI"}
    env["PATH"] = path_without(tmp_path, "bwrap")
    env["PYTHONPATH"] = str(ROOT)
    env["COLUMNS"] = "300"  # the short summary keeps each reason whole
    if ci is not None:
        env["CI"] = ci
    # A child test stuck past 120 s ends the child with its stacks on stderr (pytest-timeout), well before this
    # test's own 300 s would end the worker and lose them.
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "0", "-rfE", "--timeout", "120",
         "tests/shell/test_sandbox.py"],
        cwd=ROOT, env=env, capture_output=True, text=True,
    )
    assert run.returncode in (0, 1), f"the child pytest ended with {run.returncode}:\n{run.stdout[-3000:]}" \
                                     f"\n{run.stderr[-6000:]}"
    return run


def test_without_bwrap_a_newcomers_run_passes_with_one_notice(tmp_path: Path) -> None:
    run = child_pytest(tmp_path, None)
    assert run.returncode == 0, run.stdout[-3000:]
    lines = run.stdout.splitlines()
    assert NOTICE in lines
    assert lines[-1].startswith("2 passed, 10 skipped in ")


def test_without_bwrap_ci_fails_loudly(tmp_path: Path) -> None:
    run = child_pytest(tmp_path, "true")
    assert run.returncode == 1, run.stdout[-3000:]
    assert NOTICE not in run.stdout
    loud = "Failed: bwrap is not installed and CI=true requires this test: apt-get install -y bubblewrap"
    errors = [line for line in run.stdout.splitlines() if line.startswith("ERROR tests/shell/test_sandbox.py::")]
    assert len(errors) == 10
    assert all(line.endswith(loud) for line in errors), errors
    assert run.stdout.splitlines()[-1].startswith("2 passed, 10 errors in ")
