"""A running command's output, line by line as it arrives, for a front end that shows it live (the REPL).

The reply still carries the whole (capped) output; this only lets a person see complete lines early. A front end
sets `LISTENER` on the thread that runs commands; while it is unset (agents, scripts, the daemon) nothing is done.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextvars import ContextVar

from stringsh.workspace.shell.clean import clean_text

log = logging.getLogger(__name__)

#: Called with clean text (one or more whole lines, each ending in a newline) while a shell command runs.
LISTENER: ContextVar[Callable[[str], None] | None] = ContextVar("stringsh_shell_listener", default=None)


class LineStream:
    """Whole lines of the pty stream up to the sentinel line, cleaned, with the script path prefix removed."""

    def __init__(self, listener: Callable[[str], None], sentinel: bytes, script_prefix: bytes) -> None:
        self.listener = listener
        self.sentinel = sentinel
        self.script_prefix = script_prefix
        self._pending = b""
        self._done = False

    @classmethod
    def start(cls, sentinel: bytes, script_prefix: bytes) -> LineStream | None:
        listener = LISTENER.get()
        return None if listener is None else cls(listener, sentinel, script_prefix)

    def feed(self, chunk: bytes) -> None:
        if self._done:
            return
        self._pending += chunk
        cut = self._pending.rfind(b"\n")
        if cut < 0:
            return
        lines, self._pending = self._pending[: cut + 1], self._pending[cut + 1 :]
        at = lines.find(self.sentinel)
        if at >= 0:  # the prompt line: the command's output ended before it
            lines, self._done = lines[: lines.rfind(b"\n", 0, at) + 1], True
        text = clean_text(lines.replace(self.script_prefix, b"").decode("utf-8", "replace"))
        if text:
            try:
                self.listener(text)
            except Exception:  # a display problem must never stop the command
                log.debug("live output listener failed", exc_info=True)
