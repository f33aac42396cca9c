"""Scripted start-up stays light: the REPL's and documents' heavy libraries load only where they are used."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HEAVY = ("prompt_toolkit", "rich", "markdown_it", "httpx", "pexpect", "watchdog", "pyte")

PROBE = """
import sys
from stringsh.cli import main
status = main(["-c", "/ls"])
heavy = sorted(name for name in {heavy!r} if name in sys.modules)
print("HEAVY:", ",".join(heavy))
"""


def test_dash_c_ls_imports_no_heavy_library(ws: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY)], cwd=ws, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "HEAVY: "
