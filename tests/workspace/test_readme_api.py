"""The change-set example in docs/change-sets.md (section "In stringsh") runs as written: the documented API
is the real one. Run in a fresh interpreter with a state folder of its own."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_the_documented_change_set_example_runs(tmp_path: Path) -> None:
    page = (REPO / "docs" / "change-sets.md").read_text()
    section = page.split("\n## In stringsh\n", 1)[1].split("\n## ", 1)[0]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    env = {"PYTHONPATH": str(REPO), "XDG_STATE_HOME": str(tmp_path / "state"), "HOME": str(tmp_path),
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "PATH": "/usr/bin:/bin", "TMPDIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", code.group(1)], env=env, capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stderr) == (0, "")
