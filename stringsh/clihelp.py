"""The words of `stringsh --help` and of each subcommand's, as git and ripgrep lay theirs out: a one-line
description per subcommand, only the options that act on it, and at the end of the top page the environment
variables stringsh reads, the files and folders it reads or makes, and its exit statuses.

Text only (cli.py builds the parsers from it), so it loads only when argparse does. docs/front-ends.md says the
same in prose; a test compares these pages whole.
"""

from __future__ import annotations

DESCRIPTION = "A chat-style command shell over a workspace folder, for people and agents."

#: Each subcommand's one line: the top page's list and the first line of its own page.
SUMMARIES = {
    "run": "run script files of requests ('-' reads stdin)",
    "daemon": "serve requests on stdin, framed replies on stdout",
    "repl": "the interactive shell (the default on a terminal)",
    "operator": "OPERATOR_CMD blocks on stdin, OPERATOR_RESULT blocks on stdout",
    "tools": "JSON workspace tools, one JSON object a line both ways",
    "mcp": "a Model Context Protocol server on stdio, or on HTTP with --http",
    "web": "a local web page to watch every client's changes live and take one back",
    "trust": "let the workspace's stringsh.toml widen your policy (until it changes)",
    "audit": "verify or show the workspace's audit log",
}

#: The global options that act on each subcommand, the ones its page lists (the others are accepted there and
#: change nothing; the top page lists them all).
SHELL_OPTIONS = ("--root", "--policy", "--client", "--no-sandbox")
OWN_GLOBALS = {
    "run": (*SHELL_OPTIONS, "--color"),
    "daemon": SHELL_OPTIONS,
    "repl": SHELL_OPTIONS,
    "operator": SHELL_OPTIONS,
    "tools": SHELL_OPTIONS,
    "mcp": SHELL_OPTIONS,
    "web": ("--root", "--policy"),
    "trust": ("--root",),
    "audit": ("--root", "--policy"),
}

SUBCOMMAND_EPILOG = "The options that go before a subcommand may also follow it: 'stringsh --help'."

EPILOG = """\
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
them; docs/front-ends.md: the front ends; docs/security.md: the policy and sandbox.\
"""


def formatter() -> type:
    """argparse's formatter for the top page: the epilog kept as written, and the subcommands listed under
    `commands:` like the options, without argparse's line of their metavar above them."""
    import argparse

    class Formatter(argparse.RawDescriptionHelpFormatter):
        def _format_action(self, action: argparse.Action) -> str:
            text = super()._format_action(action)
            if action.nargs != argparse.PARSER:
                return text
            return "".join(text.splitlines(True)[1:])

    return Formatter
