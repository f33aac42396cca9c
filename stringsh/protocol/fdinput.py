"""Reading a request stream straight from its descriptor, for servers that run what they read on the reading thread.

`FdLines` reads with `os.read` and splits lines itself: no buffered reader (whose lock and peeks cost more than the
split) between the pipe and the parser, and it can say whether a request it already holds waits (`pending`).

`InputTurns` is where a server's idle threads wait to read next: all in one epoll instance, which the kernel wakes
one waiter at a time. The descriptor is watched only while nobody reads it (armed by `hand_on` when the reader goes
to run what it read, disarmed by `taken` when a thread reads again), so input that arrives while every thread is
busy wakes a second reader, and input that arrives while the reader waits on the descriptor wakes nobody else.
A thread that finishes its request takes the turn back itself when it is free, so one client's requests are read
and run by one thread, woken once per request.
"""

from __future__ import annotations

import os
import select

#: Bytes asked of the descriptor per read (a pipe holds 64 KiB).
CHUNK = 64 * 1024


class FdLines:
    """`readline(limit)` over a descriptor, as a binary file's: at most `limit` bytes (any number when negative),
    up to and including a newline; b"" at the end of input."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._buf = b""
        self._pos = 0

    def pending(self) -> bool:
        """Whether bytes already read wait to be returned (then the descriptor may say nothing when they do)."""
        return self._pos < len(self._buf)

    def readline(self, limit: int = -1) -> bytes:
        buf, pos = self._buf, self._pos
        while True:
            stop = len(buf) if limit < 0 else min(len(buf), pos + limit)
            end = buf.find(b"\n", pos, stop)
            if end >= 0:
                self._pos = end + 1
                return buf[pos : end + 1]
            if limit >= 0 and len(buf) - pos >= limit:
                self._pos = pos + limit
                return buf[pos : pos + limit]
            more = os.read(self.fd, max(CHUNK, limit - (len(buf) - pos)))
            if not more:  # the end of input: what is left, then b""
                self._buf, self._pos = b"", 0
                return buf[pos:]
            buf = buf[pos:] + more if pos < len(buf) else more
            pos = 0
            self._buf, self._pos = buf, 0


class InputTurns:
    """Idle threads wait in `wait` for their turn to read; `hand_on` ends a turn, `end` wakes every waiter for good.

    Made by `watch`, which returns None where the descriptor cannot be watched (a regular file or /dev/null is
    always readable): then threads take turns by the caller's read lock alone, as readers of any file do."""

    def __init__(self, lines: FdLines, poller: select.epoll) -> None:
        self.lines = lines
        self._poller = poller
        self._nudge_r, self._nudge_w = os.pipe()  # wakes a waiter for a request already read (FdLines.pending)
        self._end_r, self._end_w = os.pipe()  # readable for good once input ended: every waiter returns
        self._armed = True  # the descriptor is watched (registered so by `watch`)
        poller.register(self._nudge_r, select.EPOLLIN | select.EPOLLONESHOT)
        poller.register(self._end_r, select.EPOLLIN)

    @classmethod
    def watch(cls, lines: FdLines) -> InputTurns | None:
        poller = select.epoll()
        try:
            poller.register(lines.fd, select.EPOLLIN | select.EPOLLONESHOT)
        except OSError:  # EPERM: a file that is always ready
            poller.close()
            return None
        return cls(lines, poller)

    def wait(self) -> None:
        """Block until this thread's turn to read: input arrived, a request already read waits, or input ended."""
        while True:
            try:
                events = self._poller.poll(-1, 1)
            except InterruptedError:  # pragma: no cover - Python retries EINTR itself
                continue
            if events:
                break
        fd = events[0][0]
        if fd == self._nudge_r:
            os.read(self._nudge_r, 64)
        elif fd == self.lines.fd:
            self._armed = False  # one shot: it fired

    def taken(self) -> None:
        """A thread took the turn without waiting here (the previous reader, done with its request): the descriptor
        is no longer watched, so its next bytes wake no waiter (the reader reads them)."""
        if self._armed:
            self._armed = False
            self._poller.modify(self.lines.fd, select.EPOLLONESHOT)

    def hand_on(self) -> None:
        """The reader stops reading (to run what it read): the next thread to wait reads on, woken by a request
        already read or by the next bytes to arrive."""
        if self.lines.pending():
            self._poller.modify(self._nudge_r, select.EPOLLIN | select.EPOLLONESHOT)
            os.write(self._nudge_w, b".")
        else:
            self._armed = True
            self._poller.modify(self.lines.fd, select.EPOLLIN | select.EPOLLONESHOT)

    def end(self) -> None:
        """Input ended: every waiter, now and later, returns at once (and finds the end itself)."""
        os.write(self._end_w, b".")
