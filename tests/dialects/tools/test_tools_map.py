"""The JSON tool `map` through one real `stringsh tools` run: the repository map as /map ranks it (rank order, with
the map's text), focus paths, and the refusals of its arguments and paths."""

from __future__ import annotations

from pathlib import Path

from tests.dialects.mapproject import make_project
from tests.dialects.tools.client import tools

MAP = ("pkg/core.py:\n  L1 class Engine:\n  L2 def run(self, job):  #Engine.run\n  L6 def engine():\n"
       "pkg/jobs.py:\n  L4 def nightly():\npkg/cli.py:\n  L5 def main():")


def symbol(path: str, ident: str, kind: str, line: int, signature: str) -> dict[str, object]:
    return {"file_path": path, "id": ident, "kind": kind, "line": line, "signature": signature}


ENGINE = symbol("pkg/core.py", "Engine", "class", 1, "class Engine:")
RUN = symbol("pkg/core.py", "Engine.run", "method", 2, "def run(self, job):")
FACTORY = symbol("pkg/core.py", "engine", "function", 6, "def engine():")
NIGHTLY = symbol("pkg/jobs.py", "nightly", "function", 4, "def nightly():")
MAIN = symbol("pkg/cli.py", "main", "function", 5, "def main():")


def test_map_ranks_focuses_and_refuses(ws: Path) -> None:
    make_project(ws)
    replies = tools(ws, {"id": 1, "tool": "map", "args": {}},
                    {"id": 2, "tool": "map", "args": {"paths": ["/workspace/pkg/jobs.py"], "budget": 64}},
                    {"id": 3, "tool": "map", "args": {"budget": 10}},
                    {"id": 4, "tool": "map", "args": {"paths": [".env"]}},
                    {"id": 5, "tool": "map", "args": {"paths": ["../elsewhere"]}})
    assert replies[0] == {"id": 1, "ok": True, "result": {
        "symbols": [ENGINE, FACTORY, NIGHTLY, RUN, MAIN], "files": 3, "tokens": 38, "budget": 1024, "definitions": 5,
        "source_files": 3, "map": MAP}}
    assert replies[1] == {"id": 2, "ok": True, "result": {
        "symbols": [NIGHTLY, FACTORY, ENGINE, RUN, MAIN], "files": 3, "tokens": 38, "budget": 64, "definitions": 5,
        "source_files": 3, "map": "pkg/jobs.py:\n  L4 def nightly():\n" + MAP.split("pkg/jobs.py:\n")[0]
        + "pkg/cli.py:\n  L5 def main():"}}
    assert replies[2] == {"id": 3, "ok": False, "code": "INVALID_ARGS", "error": "map: 'budget' must be at least 64, "
                                                                                  "not 10."}
    assert replies[3] == {"id": 4, "ok": False, "code": "SECRET_DENIED", "error": "Access to a secret file is "
                          "denied: .env", "hint": "The policy's secret deny list covers this path."}
    assert replies[4]["code"] == "INVALID_PATH"
