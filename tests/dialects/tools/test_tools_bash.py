"""The JSON tools' `bash` scenarios through the real `stringsh tools`, and the provider-agnostic requirement."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.dialects.tools.client import bash_result, call, tools, use_sandbox

PROVIDERS = ["local", "bubblewrap"]


def test_successful_command_execution(ws: Path) -> None:
    (ws / "README.md").write_text("hi\n")
    (ws / "src").mkdir()
    reply = call(ws, "bash", {"command": "ls /workspace 2>/dev/null; ls", "workdir": "/workspace"})
    assert reply == {"id": 1, "ok": True, "result": bash_result("README.md\nsrc\n")}


def test_command_with_non_zero_exit_code(ws: Path) -> None:
    reply = call(ws, "bash", {"command": "echo 2 failing; echo 'FAIL: port' >&2; exit 3"})
    assert reply == {"id": 1, "ok": True, "result": bash_result("2 failing\n", "FAIL: port\n", 3)}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_command_timeout(ws: Path, provider: str) -> None:
    use_sandbox(provider)
    reply = call(ws, "bash", {"command": "echo partial; echo warn >&2; sleep 30", "timeout_ms": 500}, "t")
    assert reply == {
        "id": "t", "ok": False, "code": "TIMEOUT", "error": "command timed out after 500 ms",
        "hint": "It was stopped (SIGTERM, then SIGKILL 5 s later); partial output is in result.",
        "result": bash_result("partial\n", "warn\n", 124),
    }


def test_command_timeout_ignoring_sigterm_is_killed(ws: Path) -> None:
    """SIGTERM ignored: SIGKILL follows (5 s later), the partial output is still there, the loop goes on."""
    replies = tools(ws, {"id": 1, "tool": "bash", "args": {"command": "trap '' TERM; echo started; sleep 60",
                                                           "timeout_ms": 300}},
                    {"id": 2, "tool": "bash", "args": {"command": "echo next"}})
    assert replies[0]["code"] == "TIMEOUT"
    assert replies[0]["result"]["stdout"] == "started\n"
    assert replies[0]["result"]["exit_code"] == 124
    assert replies[1]["result"]["stdout"] == "next\n"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_command_with_custom_working_directory(ws: Path, provider: str) -> None:
    use_sandbox(provider)
    (ws / "src" / "lib").mkdir(parents=True)
    root = ws.resolve()
    assert call(ws, "bash", {"command": "pwd", "workdir": "/workspace/src"}) == \
        {"id": 1, "ok": True, "result": bash_result(f"{root}/src\n")}
    assert call(ws, "bash", {"command": "pwd", "workdir": "src/lib"})["result"]["stdout"] == f"{root}/src/lib\n"
    assert call(ws, "bash", {"command": "pwd", "workdir": str(root / "src")})["result"]["stdout"] == f"{root}/src\n"


@pytest.mark.parametrize(("workdir", "code", "error"), [
    ("/etc", "FILE_NOT_ALLOWED", "Path is outside the workspace: /etc"),
    ("../", "INVALID_PATH", "Path escapes the workspace root: ../"),
    ("/workspace/nope", "NOT_FOUND", "Directory not found: nope"),
    ("/workspace/f.txt", "INVALID_TARGET", "Not a directory: f.txt"),
    ("", "INVALID_ARGS", "'workdir' must not be empty."),
])
def test_workdir_outside_or_missing_is_refused(ws: Path, workdir: str, code: str, error: str) -> None:
    (ws / "f.txt").write_text("x\n")
    reply = call(ws, "bash", {"command": "touch made", "workdir": workdir})
    assert {k: reply[k] for k in ("id", "ok", "code", "error")} == {"id": 1, "ok": False, "code": code, "error": error}
    assert not (ws / "made").exists()


@pytest.mark.parametrize("provider", PROVIDERS)
def test_long_running_command_output(ws: Path, provider: str) -> None:
    use_sandbox(provider)
    reply = call(ws, "bash", {"command": "head -c 60000 /dev/zero | tr '\\0' a; echo oops >&2"})
    assert reply == {"id": 1, "ok": True, "result": {
        "stdout": "a" * 51200, "stderr": "oops\n", "exit_code": 0, "duration_ms": 0, "truncated": True,
        "stdout_total_bytes": 60000, "stderr_total_bytes": 5,
    }}


def test_empty_command_is_refused(ws: Path) -> None:
    assert call(ws, "bash", {"command": "  "}) == {"id": 1, "ok": False, "code": "INVALID_ARGS",
                                                   "error": "bash: 'command' must not be empty."}


def test_shell_disabled_by_policy_is_refused(ws: Path) -> None:
    (ws / "stringsh.toml").write_text("[permissions]\nshell = false\n")
    reply = call(ws, "bash", {"command": "touch made"})
    assert (reply["ok"], reply["code"], reply["error"]) == (False, "NOT_PERMITTED", "shell is disabled by policy")
    assert not (ws / "made").exists()


def test_secrets_in_output_are_masked(ws: Path) -> None:
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    out = call(ws, "bash", {"command": f"echo {token}"})["result"]["stdout"]
    assert token not in out


@pytest.mark.parametrize("provider", PROVIDERS)
def test_same_tool_behavior_across_providers(ws: Path, provider: str) -> None:
    use_sandbox(provider)
    assert call(ws, "bash", {"command": 'echo "hello"'}) == {"id": 1, "ok": True, "result": bash_result("hello\n")}
