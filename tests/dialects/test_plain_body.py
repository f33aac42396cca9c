"""A definition's plain body is the same text in every dialect, through the real programs: String Commands' `/open
path#Symbol --plain` (`stringsh run`, and `daemon --json`'s `content`), MCP `view_symbol` with `plain`, the JSON tool
`read_symbol` and OPERATOR_CMD `fs.readSymbol plain: true` (documents/symbolbody.py gives the four the same lines):
whole past the numbered view's 400-line limit, CRLF line ends given as lines, non-ASCII text kept, a secret masked,
nothing added."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from stringsh.dialects.operator.results import parse_results
from tests.conftest import run_stringsh
from tests.dialects.mcp.client import stdio_session
from tests.dialects.operator.operator_support import block, operator
from tests.dialects.tools.client import tools

#: 900 assignments (past `/open`'s 400-line view), a comment in French and a key the redaction rules mask.
LONG = ["# Déjà vu: the whole body, every line.", "def long():",
        *(f"    x{i} = {i}" for i in range(900)), "    key = 'AKIAQ7W3E5R7T9Y1U3I5'", "    return x0"]
#: The body every dialect must give: the definition's lines, the key masked.
BODY = "\n".join(LONG).replace("AKIAQ7W3E5R7T9Y1U3I5", "***REDACTED***")


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("plainbody") / "ws"
    root.mkdir()
    (root / "big.py").write_bytes(("import os\r\n\r\n\r\n" + "\r\n".join(LONG) + "\r\n\r\n\r\nX = 1\r\n").encode())
    return root


def string_run(ws: Path) -> str:
    (ws.parent / "plain.txt").write_text("/open big.py#long --plain\n")
    done = run_stringsh(["run", str(ws.parent / "plain.txt")], ws)
    head, _, body = done.stdout.decode().partition("\n---\n")
    assert head == "re: /open big.py#long --plain\nOpened big.py#long (plain, lines 4-907)", done.stderr
    return body.removesuffix("\n")


def daemon_json(ws: Path) -> str:
    request = json.dumps({"id": 1, "cmd": "/open big.py#long --plain"})
    done = run_stringsh(["daemon", "--json"], ws, stdin=request + "\n")
    (reply,) = [json.loads(line) for line in done.stdout.decode().splitlines()]
    head, _, body = reply["content"].partition("\n---\n")
    assert (reply["ok"], head) == (True, "re: [1] /open big.py#long --plain\nOpened big.py#long (plain, lines 4-907)")
    return body


def mcp(ws: Path) -> str:
    with stdio_session(ws, name="plain-body") as client:
        return client.text("view_symbol", {"target": "big.py#long", "plain": True})


def json_tools(ws: Path) -> str:
    (reply,) = tools(ws, {"id": 1, "tool": "read_symbol", "args": {"file_path": "big.py", "symbol": "long"}})
    result = reply["result"]
    assert (result["start_line"], result["end_line"]) == (4, 907)
    return result["content"]


def operator_cmd(ws: Path) -> str:
    out, _ = operator(ws, block("version: 1", "id: r1", "action: fs.readSymbol", "path: big.py", "symbol: long",
                                "plain: true"))
    (result,) = parse_results(out)
    head, _, body = (result.details or "").partition("\n\n")
    assert (result.summary, head) == ("Read symbol (4-907)", "# big.py#long\n# function, lines 4-907")
    return body


@pytest.mark.parametrize("dialect", [string_run, daemon_json, mcp, json_tools, operator_cmd],
                         ids=["string", "daemon-json", "mcp", "tools", "operator"])
def test_every_dialect_gives_the_same_plain_body(source: Path, dialect) -> None:
    assert dialect(source) == BODY
