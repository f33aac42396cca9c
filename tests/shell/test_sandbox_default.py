"""The shell is sandboxed by default: every dialect's shell (`!cmd`, `/exec`, JSON `bash`, MCP `bash`) runs in
bubblewrap where it works, so `.env` is masked while the workspace stays readable and writable. Only the user
turns it off (their policy, `--no-sandbox`), never a workspace's `stringsh.toml`, and the start-up line says so.
Unsandboxed (turned off, or no bwrap), a command naming a secret path is SECRET_DENIED, best effort."""

from __future__ import annotations

import os
import shlex
import shutil
from pathlib import Path

import pytest

from stringsh.dispatcher import Dispatcher
from stringsh.protocol.response import re_line
from stringsh.userdirs import user_policy_file
from stringsh.workspace.policy import Policy
from stringsh.workspace.shell.sandboxing import named_secret
from tests.conftest import run_stringsh
from tests.dialects.mcp.client import stdio_session
from tests.dialects.tools.client import bash_result, call

SECRET = "DB_PASSWORD=plain-dotenv-value-7f3a"
CANARY = b"canary: outside the workspace\n"
MASKED = "cat: .env: Permission denied"
BEST_EFFORT = "it runs with your rights; commands naming a secret path are refused (best effort)"


@pytest.fixture
def secret_ws(ws: Path, tmp_path: Path) -> Path:
    """A workspace with a secret and a plain file; a canary beside it (outside) that must stay as it is."""
    (ws / ".env").write_text(SECRET + "\n")
    (ws / "a.txt").write_text("plain\n")
    (tmp_path / "canary.txt").write_bytes(CANARY)
    return ws


def user_policy(text: str) -> None:
    user_policy_file().parent.mkdir(parents=True, exist_ok=True)
    user_policy_file().write_text(text)


def denied(request: str, word: str, why: str) -> str:
    return (f"re: {request}\nERROR(SECRET_DENIED): The command names a secret file: {word}\n"
            f"The shell is not sandboxed ({why}), so a command naming a path on the secret deny list is refused.")


def assert_canary(tmp_path: Path) -> None:
    assert (tmp_path / "canary.txt").read_bytes() == CANARY
    assert not (tmp_path / "leak.txt").exists()


# -- sandboxed by default -----------------------------------------------------------------------------------------


@pytest.mark.needs("bwrap")
def test_string_shell_and_exec_are_sandboxed_by_default(secret_ws: Path, tmp_path: Path) -> None:
    d = Dispatcher(secret_ws)
    try:
        assert d.execute("!cat .env").text == f"re: !cat .env\nexit: 1 | cwd: {secret_ws}\n---\n{MASKED}"
        assert d.execute("!base64 .env").text.endswith("base64: .env: Permission denied")
        assert d.execute("!cat a.txt").text == f"re: !cat a.txt\nexit: 0 | cwd: {secret_ws}\n---\nplain"
        assert d.execute("!echo new > b.txt").ok
        assert d.execute("/exec cat .env").text == f"re: /exec cat .env\nexit: 1 | cwd: {secret_ws}\n---\n{MASKED}"
        assert d.execute(f"/exec cat .env > {tmp_path}/leak.txt").code == "EXIT_1"  # the system is read-only
        assert d.execute("/exec cat b.txt").text == f"re: /exec cat b.txt\nexit: 0 | cwd: {secret_ws}\n---\nnew"
        assert d.execute("/bash").ok
        assert "\nsandbox:  bubblewrap\n" in d.execute("//info").text
    finally:
        d.close()
    assert (secret_ws / ".env").read_text() == SECRET + "\n"
    assert_canary(tmp_path)


@pytest.mark.needs("bwrap")
def test_json_tools_bash_is_sandboxed_by_default(secret_ws: Path, tmp_path: Path) -> None:
    assert call(secret_ws, "bash", {"command": "cat .env"})["result"] == bash_result("", f"{MASKED}\n", 1)
    assert call(secret_ws, "bash", {"command": "cat a.txt; echo w > c.txt"})["result"] == bash_result("plain\n")
    assert (secret_ws / "c.txt").read_text() == "w\n"
    assert_canary(tmp_path)


@pytest.mark.needs("bwrap")
def test_mcp_bash_is_sandboxed_by_default(secret_ws: Path, tmp_path: Path) -> None:
    with stdio_session(secret_ws) as client:
        assert client.error("bash", {"command": "cat .env"}) == (
            f"re: !cat .env\nexit: 1 | cwd: {secret_ws}\n---\n{MASKED}")
        assert client.text("bash", {"command": "cat a.txt; echo m > m.txt"}) == (
            f"re: !cat a.txt; echo m > m.txt\nexit: 0 | cwd: {secret_ws}\n---\nplain")
    assert (secret_ws / "m.txt").read_text() == "m\n"
    assert_canary(tmp_path)


@pytest.mark.needs("bwrap")
def test_no_start_up_line_under_the_defaults_when_sandboxed(secret_ws: Path) -> None:
    proc = run_stringsh(["run", "-"], secret_ws, "!cat .env\n")
    assert proc.stderr.decode() == (  # no start-up line: only the run's own report
        "stringsh: stopped at <stdin>:1: !cat .env (EXIT_1); the requests after it were not run (--keep-going runs "
        "them all)\n")
    assert SECRET.encode() not in proc.stdout + proc.stderr


@pytest.mark.needs("bwrap")
def test_a_workspace_stringsh_toml_cannot_turn_it_off(secret_ws: Path, tmp_path: Path) -> None:
    (secret_ws / "stringsh.toml").write_text("[shell]\nsandbox = false\n")
    proc = run_stringsh(["run", "--keep-going", "-"], secret_ws, "!cat .env\n!cat a.txt\n")
    assert proc.stderr.decode().splitlines()[0] == (
        "stringsh: this workspace's stringsh.toml narrows the policy (untrusted: 1 widening setting ignored: "
        "shell.sandbox; run 'stringsh trust' to allow it)")
    assert proc.stdout.decode() == (
        f"re: !cat .env\nexit: 1 | cwd: {secret_ws}\n---\n{MASKED}\n"
        f"re: !cat a.txt\nexit: 0 | cwd: {secret_ws}\n---\nplain\n")
    assert_canary(tmp_path)


# -- turned off by the user ---------------------------------------------------------------------------------------


def test_the_user_policy_turns_it_off_and_it_is_announced(secret_ws: Path, tmp_path: Path) -> None:
    user_policy("[shell]\nsandbox = false\n")
    why = f"[shell] sandbox = false in {user_policy_file()}"
    proc = run_stringsh(["run", "--keep-going", "-"], secret_ws,
                        "!cat .env\n/exec base64 ./.env\n!wc -c < .env\n!cat a.txt\n"
                        f"!touch {shlex.quote(f'{tmp_path}/made')}\n")
    assert proc.stderr.decode().splitlines()[0] == (
        f"stringsh: policy from {user_policy_file()}; shell not sandboxed ({why}): {BEST_EFFORT}")
    assert proc.stdout.decode() == "\n".join([
        denied("!cat .env", ".env", why),
        denied("/exec base64 ./.env", "./.env", why),
        denied("!wc -c < .env", ".env", why),
        f"re: !cat a.txt\nexit: 0 | cwd: {secret_ws}\n---\nplain",
        # the echo of a long command is cut at 80 characters; the touch really has the user's rights
        re_line(f"!touch {shlex.quote(f'{tmp_path}/made')}", None) + f"\nexit: 0 | cwd: {secret_ws}\n---\n(no output)",
        "",
    ])
    assert (tmp_path / "made").exists()
    assert (tmp_path / "canary.txt").read_bytes() == CANARY


def test_no_sandbox_flag_turns_it_off_for_every_dialect(secret_ws: Path) -> None:
    proc = run_stringsh(["--no-sandbox", "run", "-"], secret_ws, "!cat .env\n")
    assert proc.stderr.decode().splitlines()[0] == (
        f"stringsh: shell not sandboxed (--no-sandbox): {BEST_EFFORT}")
    assert proc.stdout.decode() == denied("!cat .env", ".env", "--no-sandbox") + "\n"
    tools = run_stringsh(["--no-sandbox", "tools"], secret_ws,
                         '{"id": 1, "tool": "bash", "args": {"command": "cp .env x"}}\n')
    assert b'"SECRET_DENIED"' in tools.stdout and not (secret_ws / "x").exists()
    with stdio_session(secret_ws, argv=["--root", str(secret_ws), "mcp", "--no-sandbox"]) as client:
        assert client.error("bash", {"command": "cat .env"}) == denied("!cat .env", ".env", "--no-sandbox")
        assert client.text("bash", {"command": "cat a.txt"}) == (
            f"re: !cat a.txt\nexit: 0 | cwd: {secret_ws}\n---\nplain")


# -- no bubblewrap ------------------------------------------------------------------------------------------------


@pytest.fixture
def no_bwrap(tmp_path: Path) -> dict[str, str]:
    """A PATH with the few tools the tests run and no bwrap (stringsh looks bwrap up on PATH)."""
    folder = tmp_path / "bin-without-bwrap"
    folder.mkdir()
    for tool in ("cat", "base64", "cp", "env"):
        os.symlink(shutil.which(tool) or f"/bin/{tool}", folder / tool)
    return {"PATH": str(folder)}


def test_without_bwrap_the_shell_is_unsandboxed_and_says_so(secret_ws: Path, no_bwrap: dict[str, str],
                                                            tmp_path: Path) -> None:
    why = "bwrap is not installed"
    proc = run_stringsh(["run", "--keep-going", "-"], secret_ws, "!cat .env\n/exec cp .env y\n!cat a.txt\n",
                        env=no_bwrap)
    assert proc.stderr.decode().splitlines()[0] == (
        f"stringsh: shell not sandboxed ({why}): {BEST_EFFORT}")
    assert proc.stdout.decode() == "\n".join([
        denied("!cat .env", ".env", why),
        denied("/exec cp .env y", ".env", why),
        f"re: !cat a.txt\nexit: 0 | cwd: {secret_ws}\n---\nplain",
        "",
    ])
    assert not (secret_ws / "y").exists()
    assert_canary(tmp_path)


def test_without_bwrap_a_sandbox_asked_for_by_name_is_an_error(secret_ws: Path, no_bwrap: dict[str, str]) -> None:
    user_policy("[shell]\nsandbox = true\n")
    proc = run_stringsh(["-c", "!cat a.txt"], secret_ws, env=no_bwrap)
    assert proc.stdout.decode().startswith(
        "re: !cat a.txt\nERROR(NOT_PERMITTED): The policy asks for the bubblewrap shell sandbox, but bwrap is not "
        "installed.\n")


# -- the best-effort scan -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [
    "cat .env", "base64 ./.env", "wc -c < .env", "cat <.env", "cp .env x", "cat sub/../.env", "echo $(cat .env)",
    "echo `cat .env`", 'cat ".env"', "grep --file=.env x", "cat .env.local", "cat id_rsa", "ls ~/.ssh",
    "cat /home/me/.aws/credentials", "true && cat .npmrc | head", "cat 'open quote .env",
])
def test_a_command_naming_a_secret_path_is_caught(command: str, ws: Path) -> None:
    assert named_secret(command, Policy.default(ws).matcher(), ws) is not None


@pytest.mark.parametrize("command", [
    "cat README.md", "ls -la", "git status", "cat .env.example", "cat key.pub",
    # what the scan cannot see, as documented: globs, variables, pieces put together, scripts
    "cat .e*", "f=.e; cat ${f}nv", "cat $(printf '.%s' env)", "bash read-it.sh",
])
def test_what_the_scan_does_not_catch(command: str, ws: Path) -> None:
    assert named_secret(command, Policy.default(ws).matcher(), ws) is None


def test_the_shells_folder_counts(ws: Path) -> None:
    (ws / "private").mkdir()
    (ws / "private" / "notes.txt").write_text("n\n")
    matcher = Policy(roots=Policy.default(ws).roots, secrets=Policy.default(ws).secrets._replace(
        deny_globs=("private/**",))).matcher()
    assert named_secret("cat notes.txt", matcher, ws, ws / "private") == "notes.txt"
    assert named_secret("cat notes.txt", matcher, ws, ws) is None
    assert named_secret(f"cat {shlex.quote(f'{ws}/private/notes.txt')}", matcher, ws) == f"{ws}/private/notes.txt"


def test_unsandboxed_an_action_value_naming_a_secret_path_is_refused(secret_ws: Path) -> None:
    """An action's values reach bash as positional parameters, not in the script's text: the scan reads them as
    words of the command all the same."""
    user_policy("[shell]\nsandbox = false\n")
    why = f"[shell] sandbox = false in {user_policy_file()}"
    (secret_ws / "ops.md").write_text("# Ops\n\n```act.show\nCLI cat {path} {also}\n  path: string (required)\n"
                                      "  also: string = a.txt\n```\n")
    proc = run_stringsh(["run", "--keep-going", "-"], secret_ws,
                        "/open ops.md\n/act.show --path .env\n/act.show --path a.txt\n")
    replies = proc.stdout.decode().split("re: ")
    assert replies[2] == denied("/act.show --path .env", ".env", why)[len("re: "):] + "\n"  # not the last value
    assert "plain" in replies[3] and SECRET not in proc.stdout.decode()
