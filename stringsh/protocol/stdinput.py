"""Standard input as every front end reads it: a read that fails is the input's end.

A read error on standard input is how a connection that broke shows: EIO once a pty's other side has gone, ECONNRESET
on a socket, EBADF on a descriptor that was never for reading. Each front end ends then as at the end of its input
(what runs is finished and answered where it can be), after one line on stderr, and exits 1; not a traceback, and
never a daemon waiting for a reader that died.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator

#: Bytes asked of the descriptor per read.
CHUNK = 65536


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


class DescriptorLines:
    """`readline(limit)` straight from a file descriptor (`os.read`), with no Python buffer object: a thread blocked
    here holds no lock the interpreter's shutdown needs. The daemon's readers are such threads: blocked in
    `sys.stdin`'s buffer, one made a daemon stopped by Ctrl-C or SIGTERM end in "Fatal Python error:
    _enter_buffered_busy" (status 134) instead of its own status. One thread reads at a time."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._held = bytearray()
        self._ended = False

    def __call__(self, limit: int = -1) -> bytes:
        held = self._held
        while True:
            end = held.find(b"\n")
            if end >= 0 and (limit < 0 or end < limit):
                take = end + 1
            elif 0 <= limit <= len(held):
                take = limit
            elif self._ended:
                take = len(held)
            else:
                data = os.read(self._fd, CHUNK)
                self._ended = not data
                held += data
                continue
            line = bytes(held[:take])
            del held[:take]
            return line
