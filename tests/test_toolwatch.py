"""The bare CI pass runs the test files that looked for a tool: a lookup in any Python child a test starts is
recorded against the running test's file, and a lookup of anything else is not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import tests.toolwatch.sitecustomize as toolwatch


def lookups(tmp_path: Path, code: str) -> str:
    log = tmp_path / "tools.log"
    env = {**os.environ, "STRINGSH_TOOL_LOG": str(log), "PYTHONPATH": str(Path(toolwatch.__file__).parent),
           "PYTEST_CURRENT_TEST": "tests/x/test_y.py::test_z (call)"}
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    return log.read_text() if log.exists() else ""


def test_a_childs_tool_lookup_is_charged_to_the_running_test_file(tmp_path: Path) -> None:
    code = "import shutil; shutil.which('git'); shutil.which('/usr/bin/bwrap'); shutil.which('rg', path='/nowhere')"
    assert lookups(tmp_path, code) == "tests/x/test_y.py\n" * 3


def test_other_lookups_are_not_recorded(tmp_path: Path) -> None:
    assert lookups(tmp_path, "import shutil; shutil.which('ls'); shutil.which('python3')") == ""
