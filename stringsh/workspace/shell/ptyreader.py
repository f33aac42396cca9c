"""Reading the shell's pty without pexpect's buffering, in large batches."""

from __future__ import annotations

import os
import select

READ_SIZE = 65536
#: Most bytes gathered from the pty before they are cleaned and scanned.
BATCH = 256 * 1024


class PtyReader:
    """Reads the pty without pexpect's buffering: None on timeout, b"" once the shell side is gone.

    A pty hands over at most 4 KB per read; after a wake-up it reads on (non-blocking) while more is there,
    so the cleaning and scanning run on larger batches.
    """

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.poll = select.poll()
        self.poll.register(fd, select.POLLIN)
        os.set_blocking(fd, False)

    def drain(self) -> bytes:
        """What is left once the shell is gone; b"" when nothing is."""
        chunks = []
        while (chunk := self.read(0.0)) not in (None, b""):
            chunks.append(chunk)
        return b"".join(chunks)

    def read(self, timeout: float) -> bytes | None:
        if not self.poll.poll(max(0.0, timeout) * 1000):
            return None
        chunks: list[bytes] = []
        size = 0
        ended = False
        while size < BATCH:
            try:
                chunk = os.read(self.fd, READ_SIZE)
            except BlockingIOError:
                break
            except OSError:  # EIO: the shell side of the pty is closed
                chunk = b""
            if not chunk:
                ended = True
                break
            chunks.append(chunk)
            size += len(chunk)
        if chunks:
            return b"".join(chunks)
        return b"" if ended else None
