"""fs.map on a real workspace: the repository map as /map ranks it, `path` its focus (`.` for none), `budget` checked,
the engine's refusals of paths."""

from __future__ import annotations

from pathlib import Path

from stringsh.protocol.operator_model import Result
from stringsh.workspace import Workspace
from tests.dialects.mapproject import make_project
from tests.dialects.operator.actions_support import run


def test_fs_map_ranks_focuses_and_refuses(ws: Path) -> None:
    make_project(ws)
    workspace = Workspace(ws)
    assert run(workspace, "fs.map", path=".") == Result(
        "c1", True, "Mapped 5 symbols",
        "# map of ./\n# symbols: 5 from 3 files, ~38 tokens (budget 1024)\n"
        "# ranked: 5 definitions in 3 source files\n\n"
        "pkg/core.py:\n  L1 class Engine:\n  L2 def run(self, job):  #Engine.run\n  L6 def engine():\n"
        "pkg/jobs.py:\n  L4 def nightly():\npkg/cli.py:\n  L5 def main():")
    assert run(workspace, "fs.map", path="pkg/jobs.py", budget="64") == Result(
        "c1", True, "Mapped 5 symbols",
        "# map of ./ (focus: pkg/jobs.py)\n# symbols: 5 from 3 files, ~38 tokens (budget 64)\n"
        "# ranked: 5 definitions in 3 source files\n\n"
        "pkg/jobs.py:\n  L4 def nightly():\n"
        "pkg/core.py:\n  L1 class Engine:\n  L2 def run(self, job):  #Engine.run\n  L6 def engine():\n"
        "pkg/cli.py:\n  L5 def main():")
    for budget in ("12", "lots"):
        assert run(workspace, "fs.map", path=".", budget=budget) == Result(
            "c1", False, "Invalid OPERATOR_CMD (ERR_INVALID_BUDGET): budget must be a whole number from 64 to 1000000.")
    assert run(workspace, "fs.map", path="../x") == Result("c1", False,
                                                           "INVALID_PATH: Path escapes the workspace root: ../x")
    assert run(workspace, "fs.map", path=".env").summary.startswith("SECRET_DENIED: ")
