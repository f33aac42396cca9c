"""Script mode (`stringsh run FILE…`, `stringsh run -`) and one-shot `stringsh -c`.

Replies go to stdout; what a script author needs to know about the run itself goes to stderr: where a stopped run
stopped (and that `--keep-going` exists), and after `--keep-going` how many requests ran and which failed, where.
"""

from __future__ import annotations

import sys

from stringsh.dispatcher import Dispatcher
from stringsh.output import reply_writer


def run_one(dispatcher: Dispatcher, text: str, topic: str | None = None, *, color: bool = False) -> int:
    dispatcher.watch_files = False  # one request: nothing to watch for
    reply = dispatcher.execute(text, topic)
    reply_writer(sys.stdout.buffer, color=color).write(reply.text)
    return exit_status(reply.ok, reply.code)


def exit_status(ok: bool, code: str | None) -> int:
    """`-c`'s status, as `sh -c` gives it: 0, a command's own (`EXIT_3` is 3: `!cmd`, a CLI action, git), else 1."""
    if ok:
        return 0
    status = code.removeprefix("EXIT_") if code is not None and code.startswith("EXIT_") else ""
    return int(status) if status.isdigit() and 0 < int(status) < 256 else 1


def _where(path: str, line: int, reply_text: str, code: str | None) -> str:
    """`file:line: header (CODE)`, the header as the reply's `re:` line shows it."""
    header = reply_text.split("\n", 1)[0].removeprefix("re: ")
    name = "<stdin>" if path == "-" else path
    return f"{name}:{line}: {header} ({code or 'failed'})"


def run_scripts(dispatcher: Dispatcher, paths: list[str], *, keep_going: bool = False, color: bool = False) -> int:
    """Run every request of every file in order; stop after the first failure unless `keep_going`."""
    from stringsh.protocol.stdinput import standard_input
    from stringsh.protocol.stream import read_requests  # not needed by `-c`

    writer = reply_writer(sys.stdout.buffer, color=color)
    count = 0
    failures: list[str] = []
    stdin = standard_input()
    for path in paths:
        try:
            stream = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115 - closed below
        except OSError as exc:
            print(f"stringsh: cannot read {path}: {exc.strerror}", file=sys.stderr)
            return 2
        readline = stdin if path == "-" else stream.readline
        try:
            for item in read_requests(readline, is_bash_mode=lambda: dispatcher.session().bash_mode):
                reply = dispatcher.answer(item)
                writer.write(reply.text)
                count += 1
                if reply.ok:
                    continue
                failures.append(_where(path, item.line, reply.text, reply.code))
                if not keep_going:
                    sys.stdout.flush()
                    print(f"stringsh: stopped at {failures[0]}; the requests after it were not run "
                          "(--keep-going runs them all)", file=sys.stderr)
                    return 1
        finally:
            if stream is not sys.stdin.buffer:
                stream.close()
    if keep_going:
        summary = f"{count} request{'s' if count != 1 else ''}"
        if failures:
            print(f"stringsh: {summary}, {len(failures)} failed:", file=sys.stderr)
            for failure in failures:
                print(f"  {failure}", file=sys.stderr)
        else:
            print(f"stringsh: {summary}, all succeeded", file=sys.stderr)
    return stdin.status(1 if failures else 0)
