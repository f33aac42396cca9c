"""`stringsh --help` and each subcommand's page, as git and ripgrep lay theirs out (stringsh/clihelp.py): exact
text at 80 columns; `-V`; bad command lines; and `-c`'s exit status."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import run_stringsh

COLUMNS = {"COLUMNS": "80"}

TOP = """\
usage: stringsh [OPTIONS] [-c REQUEST | COMMAND ...]

A chat-style command shell over a workspace folder, for people and agents.

options:
  -h, --help     show this help message and exit
  --root DIR     workspace folder (default: the current folder)
  --policy FILE  a policy file of your own: trusted, it takes the place of the
                 workspace's stringsh.toml (which may only narrow your policy
                 until you trust it)
  --client NAME  whose undo history this run's changes join (also
                 STRINGSH_CLIENT; default: -c, run, operator and tools share
                 their terminal session's, others their own)
  --no-sandbox   run the shell without the bubblewrap sandbox (it is on by
                 default where bwrap runs)
  --plain        plain line mode: fixed prompt, no colour or escapes
  --no-echo      agent mode of the plain loop: no prompts, no echo of input
                 (also STRINGSH_NO_ECHO=1)
  --color        with -c and run: render replies for people (rich)
  -V, --version  show program's version number and exit
  -c REQUEST     run one request, print its reply and exit

commands:
    run          run script files of requests ('-' reads stdin)
    daemon       serve requests on stdin, framed replies on stdout
    repl         the interactive shell (the default on a terminal)
    operator     OPERATOR_CMD blocks on stdin, OPERATOR_RESULT blocks on
                 stdout
    tools        JSON workspace tools, one JSON object a line both ways
    mcp          a Model Context Protocol server on stdio, or on HTTP with
                 --http
    web          a local web page to watch every client's changes live and
                 take one back
    trust        let the workspace's stringsh.toml widen your policy (until it
                 changes)
    audit        verify or show the workspace's audit log

environment:
  STRINGSH_CONFIG_DIR    your config folder (default: $XDG_CONFIG_HOME/stringsh,
                         else ~/.config/stringsh)
  STRINGSH_STATE_DIR     the state folder (default: $XDG_STATE_HOME/stringsh,
                         else ~/.local/state/stringsh)
  STRINGSH_CLIENT        as --client
  STRINGSH_NO_ECHO       1: as --no-echo
  STRINGSH_HISTORY       the REPL's history file (default: in the state folder)
  STRINGSH_PAGER, PAGER  the REPL's pager for replies taller than the screen
                         (default: less -RXF; empty or cat: none)
  STRINGSH_REPL_LOG      a file the REPL logs its own problems to
  STRINGSH_SYMBOL_INDEX  0: no symbol index built in the background
  NO_COLOR               set: no colour
  TERM                   dumb: the plain loop instead of the REPL
  COLUMNS                the width /help replies are wrapped to

files:
  ~/.config/stringsh/policy.toml
                         your policy, trusted, under every workspace's
  ~/.config/stringsh/    also trusted-workspaces (stringsh trust), cache.key,
                         env.json ($NAME values), gitconfig, git-credentials
                         (/git) and mcp-token (mcp --http, web)
  ~/.local/state/stringsh/workspaces/<key>/
                         each workspace's journal (undo), audit log, REPL
                         history and symbol index
  WORKSPACE/stringsh.toml
                         the workspace's policy: it only narrows yours until
                         you trust it (stringsh trust)
  WORKSPACE/.stringsh/   shell output spool files, the index cache

exit status:
  0 success; 1 a request failed; -c '!cmd': the command's own status;
  2 a bad command line or a start-up error; 130 interrupted; 143 terminated;
  141 the reader of a listing (audit, trust) went away before its end.

docs/configuration.md: every setting, variable, file and folder, and how to reset
them; docs/front-ends.md: the front ends; docs/security.md: the policy and sandbox.
"""

TRUST = """\
usage: stringsh trust [-h] [--root DIR] [--revoke | --status]

let the workspace's stringsh.toml widen your policy (until it changes)

options:
  -h, --help  show this help message and exit
  --root DIR  workspace folder (default: the current folder)
  --revoke    stop trusting the workspace
  --status    say whether the workspace is trusted

The options that go before a subcommand may also follow it: 'stringsh --help'.
"""

DAEMON = """\
usage: stringsh daemon [-h] [--root DIR] [--policy FILE] [--client NAME]
                       [--no-sandbox] [--json]

serve requests on stdin, framed replies on stdout

options:
  -h, --help     show this help message and exit
  --root DIR     workspace folder (default: the current folder)
  --policy FILE  a policy file of your own: trusted, it takes the place of the
                 workspace's stringsh.toml (which may only narrow your policy
                 until you trust it)
  --client NAME  whose undo history this run's changes join (also
                 STRINGSH_CLIENT; default: -c, run, operator and tools share
                 their terminal session's, others their own)
  --no-sandbox   run the shell without the bubblewrap sandbox (it is on by
                 default where bwrap runs)
  --json         JSON lines in and out

The options that go before a subcommand may also follow it: 'stringsh --help'.
"""

WEB = """\
usage: stringsh web [-h] [--root DIR] [--policy FILE] [--port N]

a local web page to watch every client's changes live and take one back

options:
  -h, --help     show this help message and exit
  --root DIR     workspace folder (default: the current folder)
  --policy FILE  a policy file of your own: trusted, it takes the place of the
                 workspace's stringsh.toml (which may only narrow your policy
                 until you trust it)
  --port N       the loopback port to serve (default 8766; 0: any free one)

The options that go before a subcommand may also follow it: 'stringsh --help'.
"""

SHELL_OPTIONS = ["-h", "--root", "--policy", "--client", "--no-sandbox"]
#: The options each page lists: its own, and the global ones that act on it.
PAGES = {
    ("run",): [*SHELL_OPTIONS, "--color", "--keep-going"],
    ("daemon",): [*SHELL_OPTIONS, "--json"],
    ("repl",): SHELL_OPTIONS,
    ("operator",): SHELL_OPTIONS,
    ("tools",): SHELL_OPTIONS,
    ("mcp",): [*SHELL_OPTIONS, "--http", "--host", "--log-json", "--max-sessions", "--header-timeout",
               "--idle-timeout"],
    ("web",): ["-h", "--root", "--policy", "--port"],
    ("trust",): ["-h", "--root", "--revoke", "--status"],
    ("audit",): ["-h", "--root", "--policy"],
    ("audit", "verify"): ["-h", "--root", "--policy"],
    ("audit", "tail"): ["-h", "--root", "--policy", "-n", "--json"],
}
TOP_USAGE = "usage: stringsh [OPTIONS] [-c REQUEST | COMMAND ...]\n"


def listed_options(page: str) -> list[str]:
    """The options a help page lists, in order: the first flag of each option line."""
    return re.findall(r"^  (-[-\w]+)", page.split("\noptions:\n", 1)[1], flags=re.MULTILINE)


@pytest.mark.parametrize(("argv", "expected"), [(["--help"], TOP), (["-h"], TOP), (["trust", "--help"], TRUST),
                                                (["daemon", "-h"], DAEMON), (["--root", "x", "daemon", "-h"], DAEMON),
                                                (["web", "--help"], WEB)])
def test_help_pages(tmp_path: Path, argv: list[str], expected: str) -> None:
    done = run_stringsh(argv, cwd=tmp_path, env=COLUMNS)
    assert (done.returncode, done.stdout.decode(), done.stderr) == (0, expected, b"")


@pytest.mark.parametrize(("words", "options"), PAGES.items(), ids=" ".join)
def test_each_subcommand_has_one_line_and_lists_only_its_own_options(
        tmp_path: Path, words: tuple[str, ...], options: list[str]) -> None:
    from stringsh.clihelp import SUMMARIES

    page = run_stringsh([*words, "--help"], cwd=tmp_path, env=COLUMNS).stdout.decode()
    usage, description = page.split("\n\n")[:2]
    assert usage.startswith(f"usage: stringsh {' '.join(words)} [-h]")
    if len(words) == 1:
        assert description == SUMMARIES[words[0]]
        assert f"\n    {words[0]:<13}{SUMMARIES[words[0]][:40]}" in TOP  # the same line on the top page
    assert listed_options(page) == options
    assert page.endswith("\n\nThe options that go before a subcommand may also follow it: 'stringsh --help'.\n")


def test_the_top_page_lists_every_global_option() -> None:
    assert listed_options(TOP) == ["-h", "--root", "--policy", "--client", "--no-sandbox", "--plain", "--no-echo",
                                   "--color", "-V", "-c"]


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_version(tmp_path: Path, flag: str) -> None:
    from stringsh import __version__

    done = run_stringsh([flag], cwd=tmp_path)
    assert (done.returncode, done.stdout.decode(), done.stderr) == (0, f"stringsh {__version__}\n", b"")


@pytest.mark.parametrize(("argv", "error"), [
    (["frob"], "argument COMMAND: invalid choice: 'frob' (choose from 'run', 'daemon', 'repl', 'operator', "
               "'tools', 'mcp', 'web', 'trust', 'audit')"),
    (["--frob"], "unrecognized arguments: --frob"),
    (["-x"], "unrecognized arguments: -x"),
    (["--root"], "argument --root: expected one argument"),
    (["-c"], "argument -c: expected one argument"),
])
def test_a_bad_command_line_is_named_under_the_usage_line_with_status_2(
        tmp_path: Path, argv: list[str], error: str) -> None:
    done = run_stringsh(argv, cwd=tmp_path, env=COLUMNS)
    assert (done.returncode, done.stdout, done.stderr.decode()) == (2, b"", f"{TOP_USAGE}stringsh: error: {error}\n")


def test_a_bad_subcommand_option_is_named_under_the_subcommands_usage(tmp_path: Path) -> None:
    done = run_stringsh(["trust", "--frob"], cwd=tmp_path, env=COLUMNS)
    assert (done.returncode, done.stdout, done.stderr.decode()) == (2, b"", (
        "usage: stringsh [OPTIONS] [-c REQUEST | COMMAND ...]\nstringsh: error: unrecognized arguments: --frob\n"))
    done = run_stringsh(["audit"], cwd=tmp_path, env=COLUMNS)
    assert (done.returncode, done.stdout, done.stderr.decode()) == (2, b"", (
        "usage: stringsh audit [-h] [--root DIR] [--policy FILE] {verify,tail} ...\n"
        "stringsh audit: error: the following arguments are required: {verify,tail}\n"))
    done = run_stringsh(["run"], cwd=tmp_path, env=COLUMNS)
    assert (done.returncode, done.stdout, done.stderr.decode()) == (2, b"", (
        "usage: stringsh run [-h] [--root DIR] [--policy FILE] [--client NAME]\n"
        "                    [--no-sandbox] [--color] [--keep-going]\n"
        "                    FILE [FILE ...]\n"
        "stringsh run: error: the following arguments are required: FILE\n"))


@pytest.mark.parametrize(("request_text", "status"), [
    ("!exit 3", 3), ("!exit 0", 0), ("!true", 0), ("!exit 255", 255), ("!kill -9 $$", 137),
    ("/nope", 1), ("/open missing.txt", 1), ("/ls", 0),
])
def test_c_exits_with_the_commands_status(ws: Path, request_text: str, status: int) -> None:
    done = run_stringsh(["-c", request_text], cwd=ws)
    assert done.returncode == status, done.stdout.decode()
    assert done.stdout.decode().startswith(f"re: {request_text}\n")


def test_script_exit_statuses() -> None:
    from stringsh.script import exit_status

    assert [exit_status(True, None), exit_status(False, "EXIT_3"), exit_status(False, "EXIT_256"),
            exit_status(False, "EXIT_-1"), exit_status(False, "EXIT_"), exit_status(False, "NOT_FOUND"),
            exit_status(False, None)] == [0, 3, 1, 1, 1, 1, 1]
