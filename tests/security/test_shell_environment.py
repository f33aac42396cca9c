"""The shell's environment by policy: every shell stringsh starts, through every front end's
shell tool, sandboxed or not, gets a core set of stringsh's environment and never a name like *KEY*, *SECRET*,
*TOKEN*, *PASSWORD* or *CREDENTIAL* unless the user's own policy writes it out; a workspace's untrusted
`stringsh.toml` may only narrow. All through the real program, with the secrets set in its real environment."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import STRINGSH, info_setup, on_this_machine, run_stringsh

#: What the issue's attack found in the environment, plus one of each other secret-looking kind and one plain name.
SECRETS = {
    "OPENAI_API_KEY": "openai-canary-7a1f",
    "GITHUB_TOKEN": "github-canary-93bd",
    "MY_API_SECRET": "secret-canary-c0de",
    "DB_PASSWORD": "password-canary-55aa",
    "AWS_CREDENTIALS_FILE": "credential-canary-0f0f",
    "private_key_path": "lower-canary-1e1e",
}
PLAIN = {"STRINGSH_T_PLAIN": "plain-canary-4242", "LANG": "C.UTF-8", "TZ": "UTC"}
CHILD_ENV = {**SECRETS, **PLAIN}
#: The script each front end's shell tool runs: the whole environment, then the attack's own way of getting one out.
SCRIPT = 'env; printenv GITHUB_TOKEN | sed "s/_/ /"; echo "end:$HOME"'


def user_policy(text: str) -> None:
    """The user's own policy file (the config folder conftest isolates per test)."""
    path = Path(os.environ["STRINGSH_CONFIG_DIR"], "policy.toml")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def use_sandbox(sandbox: str, extra: str = "") -> None:
    user_policy(("[shell]\nsandbox = false\n" if sandbox == "none" else "") + extra)


# -- every front end's shell tool ----------------------------------------------------------------------------------


def bang(ws: Path) -> str:
    """String Commands, `-c`: `!cmd` in the topic's live shell."""
    return run_stringsh(["-c", f"!{SCRIPT}"], ws, env=CHILD_ENV).stdout.decode()


def exec_once(ws: Path) -> str:
    """String Commands, `-c`: `/exec`, one `bash -c`."""
    return run_stringsh(["-c", f"/exec {SCRIPT}"], ws, env=CHILD_ENV).stdout.decode()


def plain_loop(ws: Path) -> str:
    """The plain loop over pipes: `!cmd` in its topic's shell."""
    return run_stringsh(["--plain", "--no-echo"], ws, stdin=f"!{SCRIPT}\n", env=CHILD_ENV).stdout.decode()


def cli_action(ws: Path) -> str:
    """A page's CLI action, run from a script (`stringsh run`)."""
    (ws / "page.md").write_text(f"# Env\n\n```act.showenv\nCLI {SCRIPT}\n```\n")
    (ws.parent / "script.txt").write_text("/open page.md\n/act.showenv\n")
    return run_stringsh(["run", str(ws.parent / "script.txt")], ws, env=CHILD_ENV).stdout.decode()


def tools_bash(ws: Path) -> str:
    """The JSON tools' `bash`."""
    request = json.dumps({"id": 1, "tool": "bash", "args": {"command": SCRIPT}}) + "\n"
    (line,) = run_stringsh(["tools"], ws, stdin=request, env=CHILD_ENV).stdout.decode().splitlines()
    reply = json.loads(line)
    assert reply["ok"], reply
    return str(reply["result"]["stdout"])


def mcp_call(ws: Path, tool: str, arguments: dict[str, str]) -> str:
    """One `tools/call` to `stringsh mcp` over real stdio pipes; the text of its one content block."""
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "env", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": tool, "arguments": arguments}},
    ]
    proc = subprocess.Popen([*STRINGSH, "mcp"], cwd=ws, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, env={**os.environ, **CHILD_ENV})
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write("".join(json.dumps(line) + "\n" for line in lines).encode())
        proc.stdin.flush()
        out = b""
        while True:  # the connection stays open until the call's answer came (EOF would cancel it); a read that
            # never returns is ended by the test timeout, with the stacks
            answers = [json.loads(text) for text in out.decode().splitlines() if text.strip()]
            found = [answer for answer in answers if answer.get("id") == 2]
            if found:
                break
            chunk = os.read(proc.stdout.fileno(), 65536)
            assert chunk, f"stringsh mcp ended early: {out!r}"
            out += chunk
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    return str(found[0]["result"]["content"][0]["text"])


def mcp_bash(ws: Path) -> str:
    """MCP's `bash`: the connection's topic shell."""
    return mcp_call(ws, "bash", {"command": SCRIPT})


def mcp_string_exec(ws: Path) -> str:
    """MCP's `string` tool running `/exec`."""
    return mcp_call(ws, "string", {"request": f"/exec {SCRIPT}"})


FRONT_ENDS: dict[str, Callable[[Path], str]] = {
    "bang": bang, "exec": exec_once, "plain": plain_loop, "action": cli_action, "tools-bash": tools_bash,
    "mcp-bash": mcp_bash, "mcp-string": mcp_string_exec,
}


@pytest.mark.parametrize("sandbox", ["none", "bubblewrap"])
@pytest.mark.parametrize("front_end", sorted(FRONT_ENDS))
def test_every_shell_tool_gets_the_core_set_and_no_secret(ws: Path, front_end: str, sandbox: str) -> None:
    use_sandbox(sandbox)
    out = FRONT_ENDS[front_end](ws).replace(SCRIPT, "<script>")  # the reply's `re:` line names GITHUB_TOKEN
    passed = dict(line.split("=", 1) for line in out.splitlines() if "=" in line and line.split("=", 1)[0].isupper())
    assert passed["LANG"] == "C.UTF-8" and passed["TZ"] == "UTC" and passed["HOME"] == os.environ["HOME"], out
    assert passed["PATH"] == os.environ["PATH"] and passed["TERM"] == "dumb", out
    assert f"end:{os.environ['HOME']}" in out, out
    for name, value in {**SECRETS, "STRINGSH_T_PLAIN": PLAIN["STRINGSH_T_PLAIN"]}.items():
        assert name not in out and value not in out, (name, out)
    assert "github canary" not in out  # the attack's `printenv GITHUB_TOKEN | sed "s/_/ /"` printed nothing


# -- what the user's policy passes, and what a workspace cannot ------------------------------------------------


def printenv(ws: Path, *names: str) -> str:
    """`!printenv NAME` for each name in one `-c`: its value, or `-` when the shell does not have it."""
    script = "; ".join(f'printenv {name} || echo "-"' for name in names)
    return run_stringsh(["-c", f"!{script}"], ws, env=CHILD_ENV).stdout.decode().split("---\n", 1)[1]


def test_the_users_policy_passes_a_secret_only_by_its_whole_name(ws: Path) -> None:
    user_policy('[shell_environment]\ninclude = ["GITHUB_TOKEN", "*SECRET*", "STRINGSH_T_*"]\nset = { CI = "1" }\n')
    assert printenv(ws, "GITHUB_TOKEN", "MY_API_SECRET", "OPENAI_API_KEY", "STRINGSH_T_PLAIN", "CI") == (
        "github-canary-93bd\n-\n-\nplain-canary-4242\n1\n")


def test_inherit_all_still_withholds_secrets_and_exclude_wins(ws: Path) -> None:
    user_policy('[shell_environment]\ninherit = "all"\nexclude = ["TZ"]\n')
    assert printenv(ws, "STRINGSH_T_PLAIN", "TZ", *SECRETS) == "plain-canary-4242\n-\n" + "-\n" * len(SECRETS)


def test_inherit_none_gives_only_the_fixed_settings(ws: Path) -> None:
    user_policy('[shell_environment]\ninherit = "none"\n')
    assert printenv(ws, "HOME", "LANG", "TERM", "PAGER") == "-\n-\ndumb\ncat\n"


WIDENING = ('[shell_environment]\ninherit = "all"\ninclude = ["GITHUB_TOKEN"]\nset = { OPENAI_API_KEY = "planted" }\n'
            'exclude = ["LANG"]\n')


def test_an_untrusted_workspace_can_only_narrow_and_the_start_up_line_says_what_was_ignored(ws: Path) -> None:
    (ws / "stringsh.toml").write_text(WIDENING)
    proc = run_stringsh(["-c", "!printenv GITHUB_TOKEN OPENAI_API_KEY STRINGSH_T_PLAIN LANG; echo $?"], ws,
                        env=CHILD_ENV)
    assert proc.stdout.decode().split("---\n", 1)[1] == "1\n"  # none of them, LANG excluded: narrowing is kept
    assert proc.stderr.decode() == on_this_machine(
        "stringsh: this workspace's stringsh.toml narrows the policy (untrusted: 3 widening settings ignored: "
        "shell_environment.inherit, shell_environment.include, shell_environment.set; run 'stringsh trust' to "
        "allow them); shell env: core - LANG") + "\n"
    info = run_stringsh(["-c", "/info"], ws, env=CHILD_ENV).stdout.decode()
    assert info.endswith(
        "\nshell env: core - LANG; withheld unless named: *KEY*, *SECRET*, *TOKEN*, *PASSWORD*, *CREDENTIAL*\n"
        + info_setup(ws, policy="defaults; workspace stringsh.toml narrows it (untrusted: 3 widening settings ignored: "
                     "shell_environment.inherit, shell_environment.include, shell_environment.set; run 'stringsh "
                     "trust' to allow them)") + "\n")


def test_a_trusted_workspace_is_the_users_own(ws: Path) -> None:
    (ws / "stringsh.toml").write_text(WIDENING)
    assert run_stringsh(["trust"], ws).returncode == 0
    assert printenv(ws, "GITHUB_TOKEN", "OPENAI_API_KEY", "STRINGSH_T_PLAIN", "LANG", "MY_API_SECRET") == (
        "github-canary-93bd\nplanted\nplain-canary-4242\n-\n-\n")
    proc = run_stringsh(["--plain", "--no-echo"], ws, env=CHILD_ENV)
    assert proc.stderr.decode() == on_this_machine(
        "stringsh: policy from this workspace's stringsh.toml (trusted); shell env: all + GITHUB_TOKEN - LANG "
        "(set: OPENAI_API_KEY)") + "\n"


@pytest.mark.parametrize("table", [
    '[shell_environment]\ninherit = "some"\n',
    '[shell_environment]\ninclude = "PATH"\n',
    '[shell_environment]\nexclude = ["A B"]\n',
    '[shell_environment]\nset = { "1X" = "v" }\n',
    '[shell_environment]\nset = { X = 1 }\n',
    '[shell_environment]\npass = ["X"]\n',
])
def test_a_bad_section_is_an_error_not_a_weaker_rule(ws: Path, table: str) -> None:
    user_policy(table)
    proc = run_stringsh(["-c", "!env"], ws, env=CHILD_ENV)
    assert proc.returncode == 2 and proc.stdout == b""
    assert proc.stderr.decode().startswith("stringsh: ERROR(INVALID_PAYLOAD): Bad policy file "), proc.stderr
