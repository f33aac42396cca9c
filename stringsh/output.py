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
