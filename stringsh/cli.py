"""Entry point: `stringsh [options] [run|daemon|repl]`. Picks a front end; every one goes through the Dispatcher.

Imports stay light here: prompt_toolkit and rich load only in the REPL.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from stringsh import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="stringsh", description="A chat-style command shell over a workspace folder.")
    parser.add_argument("--version", action="version", version=f"stringsh {__version__}")
    parser.add_argument("--root", default=None, help="workspace folder (default: the current folder)")
    parser.add_argument("--policy", default=None, help="policy file (default: stringsh.toml in the workspace root)")
    parser.add_argument("-c", dest="command", default=None, help="run one request and exit")
    parser.add_argument("--plain", action="store_true", help="plain line mode: fixed prompt, no colour or escapes")
    parser.add_argument("--color", action="store_true", help="with -c and run: render replies for people (rich)")
    sub = parser.add_subparsers(dest="mode")
    run = sub.add_parser("run", help="run script files of requests ('-' reads stdin)")
    run.add_argument("files", nargs="+")
    run.add_argument("--keep-going", action="store_true", help="run every request even after a failure")
    daemon = sub.add_parser("daemon", help="serve requests on stdin, framed replies on stdout")
    daemon.add_argument("--json", action="store_true", help="JSON lines in and out")
    sub.add_parser("repl", help="the interactive shell (default on a terminal)")
    return parser


def make_dispatcher(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from stringsh.dispatcher import Dispatcher
    from stringsh.errors import StringError

    root = Path(args.root) if args.root else Path.cwd()
    if not root.is_dir():
        print(f"stringsh: workspace folder not found: {root}", file=sys.stderr)
        raise SystemExit(2)
    try:
        dispatcher = Dispatcher(root, policy_file=Path(args.policy) if args.policy else None)
        dispatcher.check()
    except StringError as exc:
        print(f"stringsh: ERROR({exc.code}): {exc.text}", file=sys.stderr)
        raise SystemExit(2) from None
    return dispatcher


def wants_plain(args: argparse.Namespace) -> bool:
    return args.plain or os.environ.get("TERM") == "dumb" or not sys.stdin.isatty() or not sys.stdout.isatty()


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    dispatcher = make_dispatcher(args)
    try:
        if args.command is not None:
            from stringsh.script import run_one

            return run_one(dispatcher, args.command, color=args.color)
        if args.mode == "run":
            from stringsh.script import run_scripts

            return run_scripts(dispatcher, args.files, keep_going=args.keep_going, color=args.color)
        if args.mode == "daemon":
            from stringsh.daemon import run_daemon

            return run_daemon(dispatcher, json_mode=args.json)
        if args.mode != "repl" and wants_plain(args):
            from stringsh.plain import run_plain

            return run_plain(dispatcher)
        return run_interactive(dispatcher)
    except KeyboardInterrupt:
        # Ctrl-C in -c, run or daemon: stop cleanly (the journal keeps every file whole), status 130 as shells do
        print("stringsh: interrupted", file=sys.stderr)
        return 130
    finally:
        dispatcher.close()


def run_interactive(dispatcher) -> int:  # type: ignore[no-untyped-def]
    """The prompt_toolkit REPL when it is installed in this build, else the plain loop."""
    try:
        from stringsh.repl.app import run_repl
    except ImportError:
        from stringsh.plain import run_plain

        return run_plain(dispatcher)
    return run_repl(dispatcher)
