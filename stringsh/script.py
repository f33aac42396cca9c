"""Script mode (`stringsh run FILE…`, `stringsh run -`) and one-shot `stringsh -c`."""

from __future__ import annotations

import sys

from stringsh.dispatcher import Dispatcher
from stringsh.output import reply_writer


def run_one(dispatcher: Dispatcher, text: str, topic: str | None = None, *, color: bool = False) -> int:
    reply = dispatcher.execute(text, topic)
    reply_writer(sys.stdout.buffer, color=color).write(reply.text)
    return 0 if reply.ok else 1


def run_scripts(dispatcher: Dispatcher, paths: list[str], *, keep_going: bool = False, color: bool = False) -> int:
    """Run every request of every file in order; stop after the first failure unless `keep_going`."""
    from stringsh.protocol.stream import read_requests  # not needed by `-c`

    writer = reply_writer(sys.stdout.buffer, color=color)
    failed = False
    for path in paths:
        try:
            stream = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115 - closed below
        except OSError as exc:
            print(f"stringsh: cannot read {path}: {exc.strerror}", file=sys.stderr)
            return 2
        try:
            for item in read_requests(stream.readline, is_bash_mode=lambda: dispatcher.session().bash_mode):
                reply = dispatcher.answer(item)
                writer.write(reply.text)
                if not reply.ok:
                    failed = True
                    if not keep_going:
                        return 1
        finally:
            if stream is not sys.stdin.buffer:
                stream.close()
    return 1 if failed else 0
