"""The global options work before or after the subcommand: each front end, started as a real process from
another folder with `--root` after its subcommand, serves the workspace `--root` names."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import run_stringsh
from tests.dialects.operator.operator_support import block, result
from tests.repl.harness import Terminal

NOTE = "hello\n"


@pytest.fixture
def elsewhere(tmp_path: Path, ws: Path) -> Path:
    """The folder the program starts in: not the workspace, and holding a file of the same name, so a program
    that ignored `--root` would read this one instead."""
    (ws / "note.txt").write_text(NOTE)
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "note.txt").write_text("wrong folder\n")
    return other


SUBCOMMANDS = [
    ["run", "-"],
    ["daemon"],
    ["daemon", "--json"],
    ["repl"],
    ["operator"],
    ["tools"],
    ["mcp"],
    ["trust", "--status"],
    ["audit", "verify"],
    ["audit", "tail"],
]


@pytest.mark.parametrize("argv", SUBCOMMANDS, ids=" ".join)
def test_root_after_the_subcommand_names_the_workspace(tmp_path: Path, argv: list[str]) -> None:
    """Each subcommand reads `--root` after it (a missing folder is named, not a usage error)."""
    missing = tmp_path / "missing"
    done = run_stringsh([*argv, "--root", str(missing)], cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.decode() == f"stringsh: workspace folder not found: {missing}\n"
    assert done.stdout == b""


def test_run(ws: Path, elsewhere: Path) -> None:
    done = run_stringsh(["run", "--root", str(ws), "-"], cwd=elsewhere, stdin="/open note.txt\n")
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().splitlines()[-1] == "hello"


def test_daemon_json(ws: Path, elsewhere: Path) -> None:
    done = run_stringsh(["daemon", "--json", "--root", str(ws)], cwd=elsewhere,
                        stdin=json.dumps({"id": 1, "cmd": "/open note.txt"}) + "\n")
    (reply,) = map(json.loads, done.stdout.decode().splitlines())
    assert (reply["id"], reply["ok"], reply["content"].splitlines()[-1]) == (1, True, "hello")


def test_daemon_framed(ws: Path, elsewhere: Path) -> None:
    done = run_stringsh(["daemon", "--root", str(ws)], cwd=elsewhere, stdin="/open note.txt\n")
    assert done.stdout.decode().splitlines()[-2:] == ["hello", "</𝒞>"]


def test_operator(ws: Path, elsewhere: Path) -> None:
    done = run_stringsh(["operator", "--root", str(ws)], cwd=elsewhere,
                        stdin=block("version: 1", "id: r", "action: fs.read", "path: note.txt"))
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode() == result("r", True, "Read file", NOTE)


def test_tools(ws: Path, elsewhere: Path) -> None:
    request = {"id": 1, "tool": "read", "args": {"file_path": "note.txt"}}
    done = run_stringsh(["tools", "--root", str(ws)], cwd=elsewhere, stdin=json.dumps(request) + "\n")
    (reply,) = map(json.loads, done.stdout.decode().splitlines())
    assert reply["result"]["content"] == "1: hello"


def test_trust_and_audit(ws: Path, elsewhere: Path) -> None:
    status = run_stringsh(["trust", "--status", "--root", str(ws)], cwd=elsewhere)
    assert status.stdout.decode() == f"stringsh: not trusted: {ws.resolve()} (run 'stringsh trust' to trust it)\n"
    run_stringsh(["--root", str(ws), "-c", "/write made.txt\nx\n"], cwd=elsewhere)
    tail = run_stringsh(["audit", "--root", str(ws), "tail", "--json", "-n", "1"], cwd=elsewhere)
    assert tail.returncode == 0, tail.stderr.decode()
    assert "made.txt" in tail.stdout.decode()
    assert not (elsewhere / "made.txt").exists()


def test_later_value_wins(ws: Path, elsewhere: Path, tmp_path: Path) -> None:
    """Given before and after the subcommand, the later `--root` is the one used."""
    done = run_stringsh(["--root", str(tmp_path / "missing"), "daemon", "--root", str(ws)], cwd=elsewhere,
                        stdin="/open note.txt\n")
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode().splitlines()[-2:] == ["hello", "</𝒞>"]


def test_policy_and_color_after_the_subcommand(ws: Path, elsewhere: Path, tmp_path: Path) -> None:
    policy = tmp_path / "strict.toml"
    policy.write_text("[permissions]\nwrite = false\n")
    done = run_stringsh(["daemon", "--json", "--root", str(ws), "--policy", str(policy)], cwd=elsewhere,
                        stdin=json.dumps({"id": 1, "cmd": "/write x.txt\ny\n"}) + "\n")
    (reply,) = map(json.loads, done.stdout.decode().splitlines())
    assert (reply["ok"], reply["code"]) == (False, "NOT_PERMITTED")
    assert not (ws / "x.txt").exists()
    plain = run_stringsh(["run", "-", "--root", str(ws)], cwd=elsewhere, stdin="/ls\n").stdout
    colored = run_stringsh(["run", "-", "--root", str(ws), "--color"], cwd=elsewhere, stdin="/ls\n",
                           env={"TERM": "xterm-256color", "FORCE_COLOR": "1"}).stdout
    assert b"\x1b[" not in plain
    assert b"\x1b[" in colored


def test_repl(ws: Path, elsewhere: Path, tmp_path: Path) -> None:
    terminal = Terminal(["repl", "--root", str(ws)], elsewhere, {"HOME": str(tmp_path)})
    try:
        terminal.wait_for("Ctrl-D quit")
        terminal.send("/open note.txt\r")
        terminal.wait_for(lambda screen: "hello" in screen.splitlines())
    finally:
        terminal.close()

