"""The bare CI pass runs the tests that looked for a tool: a lookup in any Python child a test starts is recorded
against the running test (its whole file while fixtures are set up), and a lookup of anything else is not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import tests.toolwatch.sitecustomize as toolwatch


def lookups(tmp_path: Path, code: str, phase: str = "call") -> str:
    log = tmp_path / "tools"
    log.mkdir(exist_ok=True)
    env = {**os.environ, "STRINGSH_TOOL_LOG": str(log), "PYTHONPATH": str(Path(toolwatch.__file__).parent),
           "PYTEST_CURRENT_TEST": f"tests/x/test_y.py::test_z[a (b)] ({phase})"}
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    return "".join(file.read_text() for file in sorted(log.iterdir()))


def test_a_childs_tool_lookup_is_charged_to_the_running_test(tmp_path: Path) -> None:
    code = "import shutil; shutil.which('git'); shutil.which('/usr/bin/bwrap'); shutil.which('rg', path='/nowhere')"
    test = "tests/x/test_y.py::test_z[a (b)]\n"
    assert lookups(tmp_path, code) == test * 3
    assert lookups(tmp_path, "import shutil; shutil.which('node')", "teardown") == test * 4


def test_a_lookup_while_fixtures_are_set_up_is_charged_to_the_whole_file(tmp_path: Path) -> None:
    assert lookups(tmp_path, "import shutil; shutil.which('rg')", "setup") == "tests/x/test_y.py\n"


def test_other_lookups_are_not_recorded(tmp_path: Path) -> None:
    assert lookups(tmp_path, "import shutil; shutil.which('ls'); shutil.which('python3')") == ""
