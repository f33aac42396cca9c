"""Write reply text to a binary stream as UTF-8, whole and flushed, from any thread."""

from __future__ import annotations

import threading
from typing import BinaryIO


class ReplyWriter:
    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._lock = threading.Lock()

    def write(self, text: str) -> None:
        data = (text + "\n").encode("utf-8", "surrogateescape")
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
    return ColorReplyWriter(stream) if color else ReplyWriter(stream)
