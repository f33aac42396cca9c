"""Entry point: `stringsh [options] [run|daemon|repl|operator|tools|mcp|trust|audit]`. Picks a front end; every one
goes through the Dispatcher (the dialects `operator`, `tools` and `mcp` through its workspace, in stringsh/dialects/).
`stringsh trust` records (or revokes, or shows) the user's trust in a workspace (workspace/trust.py);
`stringsh audit verify|tail` checks or shows its audit log (auditcli.py).

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

#: The other dialects agents speak: each is `stringsh/dialects/<name>/cli.py`, whose `run(dispatcher, options)`
#: serves it on stdin/stdout (or, for mcp, HTTP).
DIALECTS = ("operator", "tools", "mcp")
SUBCOMMANDS = ("run", "daemon", "repl", "operator", "tools")
VALUE_OPTIONS = ("--root", "--policy", "-c")


def build_parser() -> argparse.ArgumentParser:
    import argparse

    parser = argparse.ArgumentParser(prog="stringsh", description="A chat-style command shell over a workspace folder.")
    parser.add_argument("--version", action="version", version=f"stringsh {__version__}")
    parser.add_argument("--root", default=None, help="workspace folder (default: the current folder)")
    parser.add_argument("--policy", default=None, help="policy file (default: stringsh.toml in the workspace root)")
    parser.add_argument("-c", dest="command", default=None, help="run one request and exit")
    parser.add_argument("--no-sandbox", action="store_true",
                        help="run the shell without the bubblewrap sandbox (it is on by default where bwrap runs)")
    parser.add_argument("--plain", action="store_true", help="plain line mode: fixed prompt, no colour or escapes")
    parser.add_argument(
        "--no-echo",
        action="store_true",
        help="agent mode of the plain loop: no prompts, no echo of input (also STRINGSH_NO_ECHO=1)",
    )
    parser.add_argument("--color", action="store_true", help="with -c and run: render replies for people (rich)")
    sub = parser.add_subparsers(dest="mode")
    run = sub.add_parser("run", help="run script files of requests ('-' reads stdin)")
    run.add_argument("files", nargs="+")
    run.add_argument("--keep-going", action="store_true", help="run every request even after a failure")
    daemon = sub.add_parser("daemon", help="serve requests on stdin, framed replies on stdout")
    daemon.add_argument("--json", action="store_true", help="JSON lines in and out")
    sub.add_parser("repl", help="the interactive shell (default on a terminal)")
    sub.add_parser("operator", help="OPERATOR_CMD blocks on stdin, OPERATOR_RESULT blocks on stdout")
    sub.add_parser("tools", help="JSON workspace tools, one JSON object a line both ways")
    mcp = sub.add_parser("mcp", help="a Model Context Protocol server on stdio, or --http HOST:PORT")
    mcp.add_argument("--http", metavar="HOST:PORT", default=None, help="serve streamable HTTP instead of stdio")
    mcp.add_argument("--host", metavar="ADDR", default=None,
                     help="with --http: listen on this address even if not loopback (a bearer token is required)")
    mcp.add_argument("--log-json", action="store_true", help="with --http: JSON log lines on stderr (docs/mcp.md)")
    mcp.add_argument("--root", default=argparse.SUPPRESS, help="workspace folder (also before `mcp`)")
    mcp.add_argument("--no-sandbox", action="store_true", default=argparse.SUPPRESS,
                     help="run the shell without the bubblewrap sandbox (also before `mcp`)")
    trust = sub.add_parser("trust", help="let the workspace's stringsh.toml widen your policy (until it changes)")
    trust.add_argument(
        "--root", dest="trust_root", metavar="DIR", default=None, help="workspace folder (default: the current one)"
    )
    which = trust.add_mutually_exclusive_group()
    which.add_argument("--revoke", action="store_true", help="stop trusting the workspace")
    which.add_argument("--status", action="store_true", help="say whether the workspace is trusted")
    add_audit_parser(sub)
    return parser


def add_audit_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`stringsh audit verify|tail`: `--root` names the workspace here too (before or after the subcommand)."""
    import argparse

    audit = sub.add_parser("audit", help="verify or show the workspace's audit log")
    what = audit.add_subparsers(dest="audit_command", metavar="{verify,tail}", required=True)
    verify = what.add_parser("verify", help="check the hash chain and its end; exit 1 naming the first bad line")
    tail = what.add_parser("tail", help="show the newest records")
    tail.add_argument("-n", dest="lines", type=int, default=10, help="how many records (default 10)")
    tail.add_argument("--json", action="store_true", help="the records as stored, one JSON object a line")
    for parser in (audit, verify, tail):
        parser.add_argument("--root", dest="audit_root", metavar="DIR", default=argparse.SUPPRESS,
                            help="workspace folder (default: the current one)")


def quick_parse(argv: list[str]) -> Options | None:
    """Read the common command lines without argparse; None for anything else (help, errors, abbreviations,
    `--opt=value`, values that start with `-`), which argparse then reads with its own messages."""
    options = Options()
    words = iter(argv)
    for word in words:
        if word in VALUE_OPTIONS:
            value = next(words, None)
            if value is None or value.startswith("-"):
                return None
            if word == "--root":
                options.root = value
            elif word == "--policy":
                options.policy = value
            else:
                options.command = value
        elif word == "--plain":
            options.plain = True
        elif word == "--no-sandbox":
            options.no_sandbox = True
        elif word == "--no-echo":
            options.no_echo = True
        elif word == "--color":
            options.color = True
        elif word in SUBCOMMANDS:
            options.mode = word
            return options if _quick_subcommand(options, list(words)) else None
        else:
            return None
    return options


def _quick_subcommand(options: Options, words: list[str]) -> bool:
    """Fill the subcommand's options; False when argparse must read them (it would also report errors)."""
    if options.mode == "daemon":
        options.json = bool(words)
        return all(word == "--json" for word in words)
    if options.mode == "run":
        # argparse takes the files as one run of words, with --keep-going before or after it, not inside
        start, end = 0, len(words)
        while start < end and words[start] == "--keep-going":
            start += 1
        while end > start and words[end - 1] == "--keep-going":
            end -= 1
        options.keep_going = start > 0 or end < len(words)
        options.files = words[start:end]
        return bool(options.files) and all(word == "-" or not word.startswith("-") for word in options.files)
    return not words


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

    root = Path(args.root) if args.root else Path.cwd()
    if not root.is_dir():
        print(f"stringsh: workspace folder not found: {root}", file=sys.stderr)
        raise SystemExit(2)
    try:
        dispatcher = Dispatcher(root, policy_file=Path(args.policy) if args.policy else None,
                                no_sandbox=args.no_sandbox)
        dispatcher.check()
    except StringError as exc:
        fail(exc)
    announce_policy(dispatcher, args)
    return dispatcher


def fail(exc: StringError) -> NoReturn:
    """A start-up error: `stringsh: ERROR(CODE): text` (the hint on the next line), status 2."""
    print(f"stringsh: ERROR({exc.code}): {exc.text}", file=sys.stderr)
    raise SystemExit(2) from None


def announce_policy(dispatcher: Dispatcher, args: Options) -> None:
    """The one start-up line saying which policy is in force and why, and when the shell is not sandboxed; `-c`
    stays quiet unless it ignored something (agents read its stdout, but a setting they asked for and did not get
    must be said)."""
    from stringsh.workspace.layers import startup_line

    workspace = dispatcher.workspace
    policy = workspace.policy
    if args.command is None or policy.ignored:
        note = None
        if policy.permissions.shell:
            from stringsh.workspace.ops.shell import sandbox_settings
            from stringsh.workspace.shell.sandboxing import shell_note

            settings = sandbox_settings(workspace)
            note = shell_note(settings.sandbox, settings.why_not)
        if args.log_json:  # every stderr line a JSON object: the line becomes the log's first event
            from stringsh.dialects.mcp.logjson import JsonLog

            JsonLog().event("policy", message=startup_line(policy, note).removeprefix("stringsh: "))
            return
        print(startup_line(policy, note), file=sys.stderr)


def run_trust(args: Options) -> int:
    """`stringsh trust [--root DIR] [--revoke | --status]`: the direnv `allow` model, bound to the file's hash."""
    from pathlib import Path

    from stringsh.errors import StringError
    from stringsh.workspace import trust
    from stringsh.workspace.layers import load_policy, workspace_policy_bytes

    root = Path(args.trust_root or args.root or Path.cwd()).resolve()
    if not root.is_dir():
        print(f"stringsh: workspace folder not found: {root}", file=sys.stderr)
        return 2
    try:
        data = workspace_policy_bytes(root)
        what = f"stringsh.toml sha256 {trust.digest(data)[:16]}" if data is not None else "no stringsh.toml"
        recorded = trust.recorded(root)
        if args.status:
            if recorded is None:
                print(f"stringsh: not trusted: {root} (run 'stringsh trust' to trust it)")
            elif recorded == trust.digest(data):
                print(f"stringsh: trusted: {root} ({what})")
            else:
                print(f"stringsh: trust lapsed: {root} (stringsh.toml changed; run 'stringsh trust' again)")
            return 0
        if args.revoke:
            print(f"stringsh: {'trust revoked' if trust.revoke(root) else 'not trusted'}: {root}")
            return 0
        ignored = load_policy(root).ignored  # also refuses a file that is not a valid policy
        trust.record(root, data)
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
    args = parse_options(sys.argv[1:] if argv is None else argv)
    if args.mode == "trust":
        return run_trust(args)
    if args.mode == "audit":
        from stringsh.auditcli import run_audit

        return run_audit(args)
    dispatcher = make_dispatcher(args)
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
    finally:
        dispatcher.close()


def run_interactive(dispatcher: Dispatcher) -> int:
    """The prompt_toolkit REPL when it is installed in this build, else the plain loop."""
    try:
        from stringsh.repl.app import run_repl
    except ImportError:
        from stringsh.plain import run_plain

        return run_plain(dispatcher)
    return run_repl(dispatcher)
