"""The static command table: every String Command's name, handler location, syntax, summary, section and flags.

Read by the dispatcher, `/help` and completion without importing any handler; `CommandSpec.handler()` imports the
handler's module on first use, so a request loads only the command it runs. The table is immutable; a front end or
test that needs other commands passes its own mapping to `Dispatcher(commands=...)`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple

from stringsh.commands.registry import SECTIONS, read_help_page

if TYPE_CHECKING:
    from stringsh.commands.context import Context
    from stringsh.protocol.response import Result

Handler = Callable[["Context"], "Result"]

#: Where the handler modules live; `CommandSpec.module` is a module name inside it.
PACKAGE = "stringsh.commands"


class CommandSpec(NamedTuple):
    """One command. `raw` commands get their argument text unsplit and unsubstituted; `hidden` ones stay out of
    `/help` and completion; `flags` are the options completion offers; `help_page` defaults to the name.

    Immutable; a NamedTuple rather than a frozen dataclass, which would cost over a millisecond of start-up."""

    name: str
    module: str
    function: str
    syntax: str
    summary: str
    section: str
    help_page: str = ""
    flags: tuple[str, ...] = ()
    raw: bool = False
    hidden: bool = False

    def help_text(self) -> str:
        """The command's help page, shipped as package data."""
        return read_help_page(self.help_page or self.name)

    def handler(self) -> Handler:
        """The handler function, its module imported on first use."""
        module = import_module(f"{PACKAGE}.{self.module}")
        function: Handler = getattr(module, self.function)
        return function


def _table(*specs: CommandSpec) -> Mapping[str, CommandSpec]:
    for spec in specs:
        if spec.section not in SECTIONS:
            raise ValueError(f"unknown help section {spec.section!r} for /{spec.name}")
    table = {spec.name: spec if spec.help_page else spec._replace(help_page=spec.name) for spec in specs}
    if len(table) != len(specs):
        raise ValueError("a command is listed twice")
    return MappingProxyType(table)


COMMANDS: Mapping[str, CommandSpec] = _table(
    # Navigation
    CommandSpec(
        "open", "open", "open_",
        syntax="/open [path[#block] | #block | @shortcut] [--from N] [--to M] [--plain]",
        summary="Show a document, one of its blocks, or a folder", section="Navigation",
        flags=("--from", "--to", "--plain"),
    ),
    CommandSpec("back", "open", "back", syntax="/back", summary="Go back to the previous document",
                section="Navigation"),
    CommandSpec("refresh", "open", "refresh", syntax="/refresh", summary="Reload the open document from disk",
                section="Navigation"),
    CommandSpec("source", "source", "source", syntax="/source [path] [--from N]",
                summary="Show the raw source of the open document", section="Navigation", flags=("--from",)),
    CommandSpec("close", "close", "close", syntax="/close", summary="Close the open document and reset the topic",
                section="Navigation"),
    CommandSpec("ls", "ls", "ls", syntax="/ls [path]", summary="List a folder of the workspace", section="Navigation"),
    CommandSpec("grep", "grep", "grep",
                syntax="/grep PATTERN [path] [--regex] [-i] [--glob G] [-C N] [--max N] [--stats]",
                summary="Search file contents; matching lines grouped by file", section="Navigation",
                flags=("--regex", "-i", "--glob", "-C", "--max", "--stats")),
    CommandSpec("symbols", "symbols", "symbols", syntax="/symbols QUERY [path…] [--refs] [--max N]",
                summary="Find definitions (or, with --refs, identifiers) in source files by name",
                section="Navigation", flags=("--refs", "--max")),
    CommandSpec("map", "map", "map_command", syntax="/map [path…] [--budget TOKENS]",
                summary="Show the most referenced definitions, ranked by the reference graph, within a token budget",
                section="Navigation", flags=("--budget",)),
    CommandSpec("glob", "glob", "glob", syntax="/glob PATTERN [path] [--stats] [--sort path|mtime]",
                summary="Find files by path pattern (**/*.py), by path or newest first", section="Navigation",
                flags=("--stats", "--sort")),
    CommandSpec("stat", "stat", "stat_command", syntax="/stat path",
                summary="Show a path's type, size, mode and time", section="Navigation"),
    CommandSpec(
        "nav", "nav", "nav",
        syntax="/nav [name | page | scaffold]",
        summary="Show the page's menus, a menu's entries, its shortcuts, or a menu scaffold", section="Navigation",
    ),
    # Editing
    CommandSpec("edit", "edit", "edit",
                syntax="/edit [--force] [--final-newline|--no-final-newline] path[#block] [--before|--after] "
                       "[<<EOF … EOF]",
                summary="Show numbered source, or replace a file or block with the body", section="Editing",
                flags=("--force", "--final-newline", "--no-final-newline", "--before", "--after")),
    CommandSpec("write", "write", "write", syntax="/write [--force] path <<EOF … EOF | /write path text",
                summary="Create a file, or replace an existing one you have read", section="Editing",
                flags=("--force",), raw=True),
    CommandSpec("append", "append", "append", syntax="/append path <<EOF … EOF | /append path text",
                summary="Add text at the end of an existing file", section="Editing", raw=True),
    CommandSpec("replace", "replace", "replace", syntax="/replace [--all] path[#block | :L5[-L10]] <<EOF … EOF",
                summary="Replace exact text, a range of lines, or a block", section="Editing", flags=("--all",)),
    CommandSpec("patch", "patch", "patch", syntax="/patch <<EOF … EOF",
                summary="Apply a unified diff to one or more files, all or nothing", section="Editing"),
    CommandSpec("rename", "rename", "rename", syntax="/rename path#Symbol NEW [--dry-run]",
                summary="Rename a definition and its references across files, as one change", section="Editing",
                flags=("--dry-run",)),
    CommandSpec("undo", "undo", "undo", syntax="/undo [--skip]",
                summary="Undo this topic's last change (repeat to go further back)", section="Editing",
                flags=("--skip",)),
    CommandSpec("changes", "changes", "changes", syntax="/changes [-n N] | /changes ID",
                summary="List recent change sets (any topic), or show one as a diff", section="Editing",
                flags=("-n",)),
    CommandSpec("revert", "revert", "revert", syntax="/revert ID",
                summary="Revert a change set by id (/undo takes the revert back)", section="Editing"),
    CommandSpec("mkdir", "mkdir", "mkdir_command", syntax="/mkdir [-p] path",
                summary="Make a folder (-p: and its parents)", section="Editing", flags=("-p",)),
    CommandSpec("mv", "mv", "mv_command", syntax="/mv [--force] from to",
                summary="Move or rename a file, link or folder", section="Editing", flags=("--force",)),
    CommandSpec("cp", "cp", "cp_command", syntax="/cp [--force] from to",
                summary="Copy a file", section="Editing", flags=("--force",)),
    CommandSpec("rm", "rm", "rm_command", syntax="/rm [-r] [--force] path",
                summary="Delete a file or link (-r: a folder)", section="Editing", flags=("-r", "--force")),
    CommandSpec("verify", "verify", "verify", syntax="/verify path#block",
                summary="Check that a block resolves; show its size and start", section="Editing"),
    # Actions
    CommandSpec("act", "act", "act", syntax="/act[.name] [--flag value]… | /act --help",
                summary="List the page's actions, show one's flags, or run it", section="Actions",
                flags=("--help",), raw=True),
    # State
    CommandSpec("set", "set", "set_variables", syntax="/set [{name} = value | $NAME = value]…",
                summary="Set or list variables", section="State", raw=True),
    CommandSpec("info", "info", "info", syntax="/info",
                summary="Show the topic's document, folder, history and variables", section="State"),
    CommandSpec("topics", "topics", "topics", syntax="/topics [tab | bash | app | hub]",
                summary="List this client's topics and what each has open", section="State"),
    CommandSpec("sessions", "topics", "sessions", syntax="/sessions [tab | bash | app | hub]",
                summary="The same as /topics", section="State", help_page="topics", hidden=True),
    CommandSpec("session", "topics", "session_close", syntax="/session close [topic]",
                summary="Close a topic: its document, history, variables and shell", section="State",
                help_page="topics"),
    # Shell
    CommandSpec("!", "bash", "bang", syntax="!<command>", summary="Run a command in this topic's persistent bash",
                section="Shell", help_page="bash", raw=True),
    CommandSpec("bash", "bash", "bash_mode", syntax="/bash",
                summary="Send every following line to this topic's bash (//exit returns)", section="Shell",
                help_page="bash", raw=True),
    CommandSpec("bash-line", "bash", "bash_line", syntax="<line>", summary="A line of a bash topic or of /bash mode",
                section="Shell", help_page="bash", raw=True, hidden=True),
    CommandSpec("exec", "exec", "exec_command", syntax="/exec [--timeout=S] <command>",
                summary="Run one stateless bash -c in the workspace", section="Shell", flags=("--timeout=",),
                raw=True),
    CommandSpec("git", "git", "git",
                syntax="/git status | diff [--staged] | log [-n N] | commit -m MSG | checkout [-b] B | branch | push",
                summary="git status, diff, log, commit, checkout, branch, push", section="Shell",
                flags=("--staged", "-n", "-m", "-b")),
    CommandSpec("operator-block", "operator_block", "operator_block", syntax="OPERATOR_CMD … END_OPERATOR_CMD",
                summary="An OPERATOR_CMD block, answered with OPERATOR_RESULT", section="Help",
                help_page="operator", raw=True, hidden=True),
    # Help
    CommandSpec("help", "help", "help_command", syntax="/help [command]",
                summary="List commands, or show one command's page", section="Help"),
)

#: Commands whose arguments are neither substituted nor split.
RAW_NAMES: frozenset[str] = frozenset(name for name, spec in COMMANDS.items() if spec.raw)
