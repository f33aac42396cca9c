"""Standard input as every front end reads it: a read that fails is the input's end.

A read error on standard input is how a connection that broke shows: EIO once a pty's other side has gone, ECONNRESET
on a socket, EBADF on a descriptor that was never for reading. Each front end ends then as at the end of its input
(what runs is finished and answered where it can be), after one line on stderr, and exits 1; not a traceback, and
never a daemon waiting for a reader that died.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator


class InputLines:
    """`readline(limit)` of a binary stream that returns b"" (the end) after a read error, said once on stderr."""

    def __init__(self, readline: Callable[[int], bytes]) -> None:
        self._readline = readline
        #: The read error that ended the input, None while it has not failed.
        self.error: OSError | None = None

    def __call__(self, limit: int = -1) -> bytes:
        if self.error is not None:
            return b""
        try:
            return self._readline(limit)
        except OSError as exc:
            self.error = exc
            print(f"stringsh: reading standard input failed ({exc.strerror or exc}); stopped as at its end",
                  file=sys.stderr)
            return b""

    def __iter__(self) -> Iterator[bytes]:
        while line := self():
            yield line

    def status(self, status: int) -> int:
        """The front end's exit status: 1 in place of 0 when the input ended on a read error."""
        return 1 if status == 0 and self.error is not None else status


def standard_input() -> InputLines:
    return InputLines(sys.stdin.buffer.readline)
