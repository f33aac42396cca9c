"""Write reply text to a binary stream as UTF-8, whole and flushed, from any thread."""

from __future__ import annotations

import os
import sys
import threading
from typing import BinaryIO

#: A surrogate that is no byte kept by `surrogateescape` (those are U+DC80-U+DCFF): UTF-8 has no bytes for it.
UNENCODABLE = r"[\ud800-\udc7f\udd00-\udfff]"


def encode_text(text: str) -> bytes:
    """A reply's bytes, whatever it holds: a byte that was not UTF-8 (kept as a surrogate) is written back as that
    byte, any other lone surrogate (from a JSON escape, `\\ud800`) as the text `\\ud800`; never an error."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        import re

        shown = re.sub(UNENCODABLE, lambda m: f"\\u{ord(m.group(0)):04x}", text)
        return shown.encode("utf-8", "surrogateescape")


def drop_the_rest() -> None:
    """What is left to write to stdout goes nowhere: its reader went away (EPIPE), and the interpreter's flush at
    exit must not fail on it again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


class ReplyWriter:
    """`wrap_help`: help replies wrapped to the terminal's width (`-c`, `run`, the plain loop for people)."""

    def __init__(self, stream: BinaryIO, *, wrap_help: bool = False) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self._wrap_help = wrap_help

    def write(self, text: str) -> None:
        if self._wrap_help and text.startswith("re: /") and text.split("\n", 2)[0][5:].lower().startswith("help"):
            from stringsh.render.helpwrap import is_help_reply, wrap_help  # help replies only: -c /ls stays light

            text = wrap_help(text) if is_help_reply(text) else text
        data = encode_text(text + "\n")
        with self._lock:
            try:
                self._stream.write(data)
                self._stream.flush()
            except BrokenPipeError:
                pass


class ColorReplyWriter:
    """`--color`: replies rendered for people with rich (documents as markdown, errors highlighted)."""

    def __init__(self, stream: BinaryIO) -> None:
        import io
        import os

        from rich.console import Console

        # asked for explicitly: colour even where TERM says the terminal is dumb (rich would drop it there)
        dumb = os.environ.get("TERM", "dumb") in ("dumb", "unknown", "")

        self._console = Console(
            file=io.TextIOWrapper(stream, encoding="utf-8", write_through=True),
            force_terminal=True,
            color_system="standard" if dumb else "auto",
            soft_wrap=False,
            highlight=False,
        )
        self._lock = threading.Lock()

    def write(self, text: str) -> None:
        from stringsh.render.replies import print_reply

        with self._lock:
            print_reply(self._console, text)


def reply_writer(stream: BinaryIO, *, color: bool = False) -> ReplyWriter | ColorReplyWriter:
    """Plain writers wrap help replies to the terminal; rich wraps the colour ones itself."""
    return ColorReplyWriter(stream) if color else ReplyWriter(stream, wrap_help=True)
