"""Every request read before stdin closes is answered before the process exits, in every dialect (before, an MCP
call answered in the audit log got `Connection closed` when the client closed stdin a second later). Each front
end gets its requests, the last a shell command still running when stdin closes (it sleeps first), and stdin is
closed at once: every reply comes, the slow one's output included."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import STRINGSH
from tests.dialects.mcp.client import server_env

SLOW = "sleep 0.5; echo slow-done"
COUNT = 5


def served(root: Path, args: list[str], lines: list[str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([*STRINGSH, "--root", str(root), *args], input="".join(f"{line}\n" for line in lines),
                          capture_output=True, text=True, timeout=120, cwd=root, env={**server_env(), "TERM": "dumb"})
    assert "Traceback" not in done.stderr
    assert done.returncode == 0, done.stderr
    return done


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "a.txt").write_text("a\n")
    return folder


def test_run_stdin(root: Path) -> None:
    done = served(root, ["run", "--keep-going", "-"], [*["/ls"] * COUNT, f"!{SLOW}"])
    assert done.stderr.splitlines()[-1] == f"stringsh: {COUNT + 1} requests, all succeeded"
    assert done.stdout.rstrip("\n").endswith("slow-done")


@pytest.mark.parametrize("args", [["--no-echo"], ["daemon"]])
def test_string_loops(root: Path, args: list[str]) -> None:
    done = served(root, args, [*["/ls"] * COUNT, f"!{SLOW}"])
    replies = re.findall(r"^re: (.*)$", done.stdout, re.MULTILINE)
    assert replies == [*["/ls"] * COUNT, f"!{SLOW}"]
    assert "\nslow-done\n</𝒞>" in done.stdout


def test_daemon_json(root: Path) -> None:
    lines = [json.dumps({"id": index, "cmd": "/ls"}) for index in range(COUNT)]
    done = served(root, ["daemon", "--json"], [*lines, json.dumps({"id": "slow", "cmd": f"!{SLOW}"})])
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert sorted(str(reply["id"]) for reply in replies) == sorted([*map(str, range(COUNT)), "slow"])
    assert next(reply for reply in replies if reply["id"] == "slow")["content"].endswith("slow-done")


def test_json_tools(root: Path) -> None:
    lines = [json.dumps({"id": index, "tool": "glob", "args": {"pattern": "*.txt"}}) for index in range(COUNT)]
    done = served(root, ["tools"], [*lines, json.dumps({"id": "slow", "tool": "bash", "args": {"command": SLOW}})])
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [reply["id"] for reply in replies] == [*range(COUNT), "slow"]
    assert replies[-1]["result"]["stdout"] == "slow-done\n"


def test_operator(root: Path) -> None:
    block = ["OPERATOR_CMD", "version: 1", "id: b{n}", "action: fs.list", "path: .", "END_OPERATOR_CMD"]
    lines = [line.format(n=index) for index in range(COUNT) for line in block]
    done = served(root, ["operator"], lines)
    assert re.findall(r"^id: (.*)$", done.stdout, re.MULTILINE) == [f"b{index}" for index in range(COUNT)]


def test_mcp_stdio(root: Path) -> None:
    opening = [json.dumps({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "eof", "version": "1"}}}),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"})]
    pings = [json.dumps({"jsonrpc": "2.0", "id": index, "method": "ping"}) for index in range(COUNT)]
    slow = json.dumps({"jsonrpc": "2.0", "id": "slow", "method": "tools/call",
                       "params": {"name": "bash", "arguments": {"command": SLOW}}})
    done = served(root, ["mcp"], [*opening, *pings, slow])
    replies = {reply["id"]: reply for reply in map(json.loads, done.stdout.splitlines()) if "method" not in reply}
    assert set(replies) == {"init", *range(COUNT), "slow"}
    assert replies["slow"]["result"]["content"][0]["text"].endswith("slow-done")
