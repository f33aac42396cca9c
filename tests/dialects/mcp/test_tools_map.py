"""`repo_map` on `stringsh mcp` (real stdio, the SDK's client): one `/map` String Command, so its reply and
refusals are /map's exactly; read-only, and refused when the client's roots narrow the workspace (it ranks it all)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.dialects.mapproject import make_project
from tests.dialects.mcp.client import Client, stdio_session

TAIL = ("5 definitions in 3 source files ranked by their references (syntactic: identifiers by name, no types); "
        "scanned 3 files (4 entries)")


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("mcpmap").resolve() / "ws"
    folder.mkdir()
    make_project(folder)
    return folder


@pytest.fixture(scope="module")
def client(root: Path, env: dict[str, str]) -> Iterator[Client]:
    with stdio_session(root, name="map-client", env=env) as session:
        yield session


def test_repo_map_runs_map(client: Client, root: Path) -> None:
    tools = {tool.name: tool for tool in client.portal.call(client.session.list_tools).tools}
    assert tools["repo_map"].annotations.read_only_hint is True  # type: ignore[union-attr]
    assert client.text("repo_map") == (
        "re: /map --\nMap of ./: 5 symbols from 3 files, ~38 tokens (budget 1024)\n---\n"
        "pkg/core.py:\n  L1 class Engine:\n  L2 def run(self, job):  #Engine.run\n  L6 def engine():\n"
        "pkg/jobs.py:\n  L4 def nightly():\npkg/cli.py:\n  L5 def main():\n\n"
        f"Open one: /open pkg/core.py#Engine\n{TAIL}")
    assert client.text("repo_map", {"paths": ["pkg/jobs.py"], "budget": 64}) == (
        "re: /map --budget 64 -- pkg/jobs.py\n"
        "Map of ./ (focus: pkg/jobs.py): 5 symbols from 3 files, ~38 tokens (budget 64)\n---\n"
        "pkg/jobs.py:\n  L4 def nightly():\n"
        "pkg/core.py:\n  L1 class Engine:\n  L2 def run(self, job):  #Engine.run\n  L6 def engine():\n"
        "pkg/cli.py:\n  L5 def main():\n\n"
        f"Open one: /open pkg/jobs.py#nightly\n{TAIL}")
    assert client.error("repo_map", {"paths": [".env"]}).startswith("re: /map -- .env\nERROR(SECRET_DENIED): ")
    assert client.error("repo_map", {"paths": ["../x"]}).startswith("re: /map -- ../x\nERROR(INVALID_PATH): ")
