"""The plain interactive loop: a fixed prompt, no escape sequences, the same reply texts as `stringsh run`.

Used with `--plain`, `TERM=dumb` or when stdin is not a terminal (agents in a pty or on pipes).
"""

from __future__ import annotations

import os
import signal
import sys

from stringsh.dispatcher import Dispatcher
from stringsh.output import ReplyWriter
from stringsh.protocol.response import Reply
from stringsh.protocol.stream import StreamItem, read_requests
from stringsh.session import Session

PROMPT = "› "
BASH_PROMPT = "bash› "
CONTINUATION = "… "
BANNER = "stringsh — /help lists commands, !cmd runs a shell command, Ctrl-D leaves"


def answer_interruptibly(dispatcher: Dispatcher, item: StreamItem, session: Session) -> Reply:
    """Run one request; Ctrl-C meanwhile interrupts the topic's running shell command, as in a terminal.

    Outside a shell command Ctrl-C abandons the request (KeyboardInterrupt); the engine's journal keeps files whole.
    """

    def on_interrupt(signum: int, frame: object) -> None:
        bash = session.bash
        if bash is not None and bash.interrupt():
            return
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        return dispatcher.answer(item)
    finally:
        signal.signal(signal.SIGINT, previous)


def run_plain(dispatcher: Dispatcher) -> int:
    """Serve requests from stdin until end of input; prompts only when stdin is a terminal."""
    interactive = os.isatty(sys.stdin.fileno())
    out = sys.stdout.buffer
    writer = ReplyWriter(out)
    session = dispatcher.session()

    def prompt(text: str) -> None:
        if interactive:
            out.write(text.encode("utf-8"))
            out.flush()

    if interactive:
        writer.write(BANNER)
    while True:
        try:
            prompt(BASH_PROMPT if session.bash_mode else PROMPT)  # inside: a Ctrl-C right after it is caught too
            items = read_requests(
                sys.stdin.buffer.readline,
                on_continuation=lambda: prompt(CONTINUATION),
                on_skipped=lambda: prompt(BASH_PROMPT if session.bash_mode else PROMPT),
                is_bash_mode=lambda: session.bash_mode,
            )
            item = next(items, None)
            if item is None:
                break
            reply = answer_interruptibly(dispatcher, item, session)
        except KeyboardInterrupt:
            writer.write("")
            continue
        writer.write(reply.text)
    if interactive:
        writer.write("")
    return 0
