"""Entry point: `stringsh [options] [run|daemon|repl|operator|tools|mcp|web|trust|audit]`. Picks a front end; every one
goes through the Dispatcher (the dialects `operator`, `tools` and `mcp` through its workspace, in stringsh/dialects/).
`stringsh trust` records (or revokes, or shows) the user's trust in a workspace (workspace/trust.py);
`stringsh audit verify|tail` checks or shows its audit log (auditcli.py); `stringsh web` serves the supervisor's
page (stringsh/web/).

Imports stay light here: prompt_toolkit and rich load only in the REPL, and argparse (with the shutil, gettext and
locale it pulls in) only for a command line the quick reader below does not fully understand.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, NoReturn

from stringsh import __version__
from stringsh.options import Options

if TYPE_CHECKING:
    import argparse

    from stringsh.dispatcher import Dispatcher
    from stringsh.errors import StringError
    from stringsh.protocol.operator_model import Confirmer
    from stringsh.workspace import Workspace

#: The other dialects agents speak: each is `stringsh/dialects/<name>/cli.py`, whose `run(dispatcher, options)`
#: serves it on stdin/stdout (or, for mcp, HTTP).
DIALECTS = ("operator", "tools", "mcp")
#: The subcommands the quick reader below understands; the others go to argparse.
SUBCOMMANDS = ("run", "daemon", "repl", "operator", "tools")
#: The one-shot front ends: without a client name they share their terminal session's undo history.
SESSION_MODES = ("run", "operator", "tools")
#: The global options, accepted before or after any subcommand: (flag, its value's name or None for a switch, help).
#: argparse and the quick reader both read this table, so a new global option is one line here (and its default in
#: `Options`, and in clihelp.OWN_GLOBALS the subcommands it acts on); its `Options` attribute is the flag's name
#: without dashes, `-` as `_`.
GLOBAL_OPTIONS: tuple[tuple[str, str | None, str], ...] = (
    ("--root", "DIR", "workspace folder (default: the current folder)"),
    ("--policy", "FILE", "a policy file of your own: trusted, it takes the place of the workspace's stringsh.toml "
                         "(which may only narrow your policy until you trust it)"),
    ("--client", "NAME", "whose undo history this run's changes join (also STRINGSH_CLIENT; default: -c, run, "
                         "operator and tools share their terminal session's, others their own)"),
    ("--no-sandbox", None, "run the shell without the bubblewrap sandbox (it is on by default where bwrap runs)"),
    ("--plain", None, "plain line mode: fixed prompt, no colour or escapes"),
    ("--no-echo", None, "agent mode of the plain loop: no prompts, no echo of input (also STRINGSH_NO_ECHO=1)"),
    ("--color", None, "with -c and run: render replies for people (rich)"),
)


def option_name(flag: str) -> str:
    """The `Options` attribute a flag sets: `--no-echo` -> `no_echo`."""
    return flag.lstrip("-").replace("-", "_")


def global_parser(shown: tuple[str, ...] | None = None) -> argparse.ArgumentParser:
    """The global options as an argparse parent, given to the top parser and to every subcommand's; a subcommand's
    page lists only the ones in `shown` (those that act on it), the others still accepted there.

    Nothing has a default here (`Options` holds them), so a subcommand's parser never overwrites a value given
    before the subcommand; given in both places, the later one wins."""
    import argparse

    parent = argparse.ArgumentParser(add_help=False, argument_default=argparse.SUPPRESS)
    for flag, value, text in GLOBAL_OPTIONS:
        shown_text = text if shown is None or flag in shown else argparse.SUPPRESS
        if value:
            parent.add_argument(flag, dest=option_name(flag), metavar=value, help=shown_text)
        else:
            parent.add_argument(flag, dest=option_name(flag), action="store_true", help=shown_text)
    return parent


def build_parser() -> argparse.ArgumentParser:
    import argparse

    from stringsh import clihelp

    def subcommand(name: str) -> argparse.ArgumentParser:
        """A subcommand's parser: its one line, only its own options on its page."""
        return sub.add_parser(name, parents=[global_parser(clihelp.OWN_GLOBALS[name])], prog=f"stringsh {name}",
                              help=clihelp.SUMMARIES[name], description=clihelp.SUMMARIES[name],
                              epilog=clihelp.SUBCOMMAND_EPILOG, formatter_class=clihelp.formatter())

    parser = argparse.ArgumentParser(prog="stringsh", description=clihelp.DESCRIPTION, epilog=clihelp.EPILOG,
                                     usage="stringsh [OPTIONS] [-c REQUEST | COMMAND ...]",
                                     formatter_class=clihelp.formatter(),
                                     parents=[global_parser()], argument_default=argparse.SUPPRESS)
    parser.add_argument("-V", "--version", action="version", version=f"stringsh {__version__}")
    parser.add_argument("-c", dest="command", metavar="REQUEST", help="run one request, print its reply and exit")
    sub = parser.add_subparsers(dest="mode", title="commands", metavar="COMMAND")
    run = subcommand("run")
    run.add_argument("files", nargs="+", metavar="FILE", help="a script of requests; '-' reads stdin")
    run.add_argument("--keep-going", action="store_true", help="run every request even after a failure")
    daemon = subcommand("daemon")
    daemon.add_argument("--json", action="store_true", help="JSON lines in and out")
    subcommand("repl")
    subcommand("operator")
    subcommand("tools")
    mcp = subcommand("mcp")
    mcp.add_argument("--http", metavar="HOST:PORT", help="serve streamable HTTP instead of stdio")
    mcp.add_argument("--host", metavar="ADDR",
                     help="with --http: listen on this address even if not loopback (a bearer token is required)")
    mcp.add_argument("--log-json", action="store_true", help="with --http: JSON log lines on stderr (docs/mcp.md)")
    mcp.add_argument("--max-sessions", type=int, metavar="N", help="with --http: open sessions at most (64)")
    mcp.add_argument("--header-timeout", type=float, metavar="S",
                     help="with --http: seconds a connection gets to send a request's headers (10)")
    mcp.add_argument("--idle-timeout", type=float, metavar="S",
                     help="with --http: seconds an idle keep-alive connection is kept (5)")
    web = subcommand("web")
    web.add_argument("--port", type=int, metavar="N",
                     help="the loopback port to serve (default 8766; 0: any free one)")
    trust = subcommand("trust")
    which = trust.add_mutually_exclusive_group()
    which.add_argument("--revoke", action="store_true", help="stop trusting the workspace")
    which.add_argument("--status", action="store_true", help="say whether the workspace is trusted")
    add_audit_parser(subcommand("audit"))
    return parser


def add_audit_parser(audit: argparse.ArgumentParser) -> None:
    """`stringsh audit verify|tail`: the global options go before `audit`, after it, or after `verify`/`tail`."""
    from stringsh.clihelp import OWN_GLOBALS, SUBCOMMAND_EPILOG

    common = global_parser(OWN_GLOBALS["audit"])
    what = audit.add_subparsers(dest="audit_command", title="commands", metavar="{verify,tail}", required=True)
    verify = "check the hash chain and its end; exit 1 naming the first bad line"
    what.add_parser("verify", parents=[common], prog="stringsh audit verify", help=verify, description=verify,
                    epilog=SUBCOMMAND_EPILOG)
    tail = what.add_parser("tail", parents=[common], prog="stringsh audit tail", help="show the newest records",
                           description="show the newest records: local time, topic, operation, outcome, "
                           "milliseconds and summary", epilog=SUBCOMMAND_EPILOG)
    tail.add_argument("-n", dest="lines", type=int, default=10, metavar="N", help="how many records (default 10)")
    tail.add_argument("--json", action="store_true", help="the records as stored, one JSON object a line")


#: The quick reader's options: the global ones, and `-c` before the subcommand.
QUICK_VALUES = {flag: option_name(flag) for flag, value, _ in GLOBAL_OPTIONS if value}
QUICK_FLAGS = {flag: option_name(flag) for flag, value, _ in GLOBAL_OPTIONS if not value}


def quick_parse(argv: list[str]) -> Options | None:
    """Read the common command lines without argparse; None for anything else (help, errors, abbreviations,
    `--opt=value`, values that start with `-`), which argparse then reads with its own messages.

    Global options are read wherever they stand; the subcommand's own words are left in order, a global option
    among them as None (argparse takes `run`'s files as one run of words, not split by an option)."""
    options = Options()
    words = iter(argv)
    rest: list[str | None] = []
    for word in words:
        if word in QUICK_VALUES or (word == "-c" and options.mode is None):
            value = next(words, None)
            if value is None or value.startswith("-"):
                return None
            setattr(options, "command" if word == "-c" else QUICK_VALUES[word], value)
            if options.mode is not None:
                rest.append(None)
        elif word in QUICK_FLAGS:
            setattr(options, QUICK_FLAGS[word], True)
            if options.mode is not None:
                rest.append(None)
        elif options.mode is not None:
            rest.append(word)
        elif word in SUBCOMMANDS:
            options.mode = word
        else:
            return None
    return options if options.mode is None or _quick_subcommand(options, rest) else None


def _quick_subcommand(options: Options, words: list[str | None]) -> bool:
    """Fill the subcommand's options; False when argparse must read them (it would also report errors)."""
    if options.mode == "daemon":
        options.json = "--json" in words
        return all(word in (None, "--json") for word in words)
    if options.mode == "run":
        # argparse takes the files as one run of words, with options before or after it, not inside
        start, end = 0, len(words)
        while start < end and words[start] in (None, "--keep-going"):
            start += 1
        while end > start and words[end - 1] in (None, "--keep-going"):
            end -= 1
        options.keep_going = "--keep-going" in words
        files = words[start:end]
        options.files = [word for word in files if word is not None]
        return bool(files) and all(word == "-" or (word is not None and not word.startswith("-")) for word in files)
    return all(word is None for word in words)


def parse_options(argv: list[str]) -> Options:
    quick = quick_parse(argv)
    if quick is not None:
        return quick
    options = Options()
    vars(options).update(vars(build_parser().parse_args(argv)))
    return options


def make_dispatcher(args: Options) -> Dispatcher:
    from pathlib import Path

    from stringsh.dispatcher import Dispatcher
    from stringsh.errors import StringError
    from stringsh.workspace import pick_client

    root = args.workspace_folder()
    if root is None:
        raise SystemExit(2)
    try:
        client = pick_client(args.client, session=args.command is not None or args.mode in SESSION_MODES)
        dispatcher = Dispatcher(root, policy_file=Path(args.policy) if args.policy else None,
                                no_sandbox=args.no_sandbox, client=client, blocks=answer_blocks)
        dispatcher.check()
    except StringError as exc:
        fail(exc)
    announce_policy(dispatcher, args)
    announce_read_only(dispatcher, args)
    return dispatcher


def answer_blocks(workspace: Workspace, text: str, confirm: Confirmer | None, *, topic: str) -> tuple[str, bool]:
    """The operator dialect answering an OPERATOR_CMD request sent to the REPL, the plain loop, the daemon or `-c`
    (a `BlockAnswerer`): a front end, handed down to the dispatcher from here and imported on the first block."""
    from stringsh.dialects.operator.serve import answer_request

    return answer_request(workspace, text, confirm, topic=topic)


def announce_read_only(dispatcher: Dispatcher, args: Options) -> None:
    """Degraded mode (the state folder is full, read-only, unwritable or locked): one line on stderr, in every mode
    (`-c` too: a change it asks for will be refused), saying why; reads go on."""
    why = dispatcher.workspace.state.read_only
    if why is None:
        return
    line = f"read-only: {why}; reading works, changes are refused until that clears"
    if args.log_json:
        from stringsh.dialects.mcp.logjson import JsonLog

        JsonLog().event("read-only", "warning", message=line)
        return
    print(f"stringsh: {line}", file=sys.stderr)


def fail(exc: StringError) -> NoReturn:
    """A start-up error: `stringsh: ERROR(CODE): text` (the hint on the next line), status 2."""
    print(f"stringsh: ERROR({exc.code}): {exc.text}", file=sys.stderr)
    raise SystemExit(2) from None


def announce_policy(dispatcher: Dispatcher, args: Options) -> None:
    """The one start-up line, on stderr, by the same rule for every front end: nothing when the built-in defaults
    are all there is and the shell is sandboxed; else which policy files are in force and where they came from,
    what an untrusted workspace's file had ignored, and why the shell is not sandboxed. `-c` asks about the sandbox
    only for a `!` request, the one that starts the shell (its start stays light: no probe for `-c /ls`). Under
    `--log-json` the line is the log's first event, always (a log says what it started with)."""
    from stringsh.workspace import startup_line

    workspace = dispatcher.workspace
    policy = workspace.policy
    note = None
    if policy.permissions.shell and (args.command is None or is_shell_line(args.command)):
        from stringsh.workspace import shell_note

        settings = workspace.sandbox_settings()
        note = shell_note(settings.sandbox, settings.why_not)
    line = startup_line(policy, note)
    if args.log_json:  # every stderr line a JSON object: the line becomes the log's first event
        from stringsh.dialects.mcp.logjson import JsonLog

        JsonLog().event("policy", message=line.removeprefix("stringsh: ") if line else "built-in defaults")
        return
    if line is not None:
        print(line, file=sys.stderr)


def is_shell_line(text: str) -> bool:
    """Whether a `-c` request runs in the shell: `!cmd`, after a request id if it has one."""
    from stringsh.protocol.request import REQUEST_ID

    return REQUEST_ID.sub("", text.lstrip(), count=1).startswith("!")


def run_trust(args: Options) -> int:
    """`stringsh trust [--root DIR] [--revoke | --status]`: the direnv `allow` model, bound to the file's hash."""
    from stringsh.errors import StringError
    from stringsh.workspace import (
        load_policy,
        trust_digest,
        trust_record,
        trust_recorded,
        trust_revoke,
        workspace_policy_bytes,
    )

    folder = args.workspace_folder()
    if folder is None:
        return 2
    root = folder.resolve()
    try:
        data = workspace_policy_bytes(root)
        what = f"stringsh.toml sha256 {trust_digest(data)[:16]}" if data is not None else "no stringsh.toml"
        recorded = trust_recorded(root)
        if args.status:
            if recorded is None:
                print(f"stringsh: not trusted: {root} (run 'stringsh trust' to trust it)")
            elif recorded == trust_digest(data):
                print(f"stringsh: trusted: {root} ({what})")
            else:
                print(f"stringsh: trust lapsed: {root} (stringsh.toml changed; run 'stringsh trust' again)")
            return 0
        if args.revoke:
            print(f"stringsh: {'trust revoked' if trust_revoke(root) else 'not trusted'}: {root}")
            return 0
        ignored = load_policy(root).ignored  # also refuses a file that is not a valid policy
        trust_record(root, data)
    except StringError as exc:
        fail(exc)
    allowed = f"; now allowed: {', '.join(ignored)}" if ignored else ""
    print(f"stringsh: trusted: {root} ({what}){allowed}; editing stringsh.toml lapses trust")
    return 0


def wants_no_echo(args: Options) -> bool:
    """The plain loop's agent mode: `--no-echo` or `STRINGSH_NO_ECHO=1` (also selects the plain loop)."""
    return args.no_echo or os.environ.get("STRINGSH_NO_ECHO", "") not in ("", "0")


def wants_plain(args: Options) -> bool:
    return (
        args.plain
        or wants_no_echo(args)
        or os.environ.get("TERM") == "dumb"
        or not sys.stdin.isatty()
        or not sys.stdout.isatty()
    )


def main(argv: list[str] | None = None) -> int:
    fill_closed_input_and_errors()
    if sys.stdout is None:  # started with standard output closed (`>&-`): no reply, help or record can be written
        print("stringsh: standard output is closed: open it (a file, a pipe, /dev/null) and run again", file=sys.stderr)
        return 2
    try:
        return run_main(argv)
    except BrokenPipeError:
        # whatever reads the output went away (`stringsh audit tail | head -1`): the rest goes nowhere, quietly, and
        # the status is a program's that SIGPIPE ended, as `seq 1 1000000 | head -1` leaves it
        from stringsh.output import drop_the_rest

        drop_the_rest()
        return 128 + 13


def fill_closed_input_and_errors() -> None:
    """Standard input or error started closed (`<&-`, `2>&-`) is opened on /dev/null: empty input, and messages
    that go nowhere. Left closed, its descriptor would be the next file opened (a journal's, a workspace file's)
    and Python would print what is meant for stderr to stdout, into a daemon's or an MCP server's replies."""
    for fd, name, flags in ((0, "stdin", os.O_RDONLY), (2, "stderr", os.O_WRONLY)):
        if getattr(sys, name) is None:
            null = os.open(os.devnull, flags)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
            stream = open(fd, "r" if fd == 0 else "w", encoding="utf-8", closefd=False)  # noqa: SIM115 - kept open
            setattr(sys, name, stream)


def run_main(argv: list[str] | None) -> int:
    args = parse_options(sys.argv[1:] if argv is None else argv)
    if args.mode == "trust":
        return run_trust(args)
    if args.mode == "audit":
        from stringsh.auditcli import run_audit

        return run_audit(args)
    dispatcher = make_dispatcher(args)
    if serves_until_stopped(args):
        import signal

        signal.signal(signal.SIGTERM, terminated)
    try:
        if args.command is not None:
            from stringsh.script import run_one

            return run_one(dispatcher, args.command, color=args.color)
        if args.mode == "run":
            from stringsh.script import run_scripts

            return run_scripts(dispatcher, args.files, keep_going=args.keep_going, color=args.color)
        if args.mode in DIALECTS:
            from importlib import import_module

            return int(import_module(f"stringsh.dialects.{args.mode}.cli").run(dispatcher, args))
        if args.mode == "web":
            from stringsh.web.cli import run_web

            return run_web(dispatcher, args)
        if args.mode == "daemon":
            from stringsh.daemon import run_daemon

            return run_daemon(dispatcher, json_mode=args.json)
        if args.mode != "repl" and wants_plain(args):
            from stringsh.plain import run_plain

            return run_plain(dispatcher, echo=not wants_no_echo(args))
        return run_interactive(dispatcher)
    except KeyboardInterrupt:
        # Ctrl-C in -c, run or daemon: stop cleanly (the journal keeps every file whole), status 130 as shells do
        print("stringsh: interrupted", file=sys.stderr)
        return 130
    except Terminated:
        print("stringsh: terminated", file=sys.stderr)
        return 128 + 15
    finally:
        dispatcher.close()


class Terminated(BaseException):
    """SIGTERM, raised in the main thread: a front end that serves until stopped ends as after Ctrl-C (its shells
    and their jobs ended, the audit log's last records written), not on the spot with them left behind."""


def terminated(signum: int, frame: object) -> None:
    import signal

    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM while closing ends the process at once
    raise Terminated


def serves_until_stopped(args: Options) -> bool:
    """`run`, `daemon`, `operator`, `tools`, `web` and the plain loop; not `-c` (one request), nor the REPL, whose
    terminal prompt_toolkit restores on its own way out, nor `mcp`, whose event loop an exception from a signal
    handler leaves half cancelled: it ends its input instead (stdio_front.py; `web` and `mcp --http` stop
    gracefully on their own while they serve)."""
    if args.command is not None:
        return False
    return args.mode in ("run", "daemon", "web", "operator", "tools") or (args.mode is None and wants_plain(args))


def run_interactive(dispatcher: Dispatcher) -> int:
    """The prompt_toolkit REPL when it is installed in this build, else the plain loop."""
    try:
        from stringsh.repl.app import run_repl
    except ImportError:
        from stringsh.plain import run_plain

        return run_plain(dispatcher)
    return run_repl(dispatcher)
