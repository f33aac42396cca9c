"""Waiting for the workspace lock another process holds: woken the moment it is let go, and given up after a
deadline. A poll with growing sleeps woke up to 50 ms late, and under load the process that held the lock kept
handing it to its own next thread while the other slept: one server's writes waited behind all of the other's.

`flock` itself cannot time out, so a thread of its own blocks in it. The caller waits for that thread with a
deadline; a caller that gives up leaves the thread waiting, and the lock is let go the moment it is taken unless
a later caller claimed the same wait meanwhile."""

from __future__ import annotations

import contextlib
import fcntl
import os
import threading


class FlockWait:
    """One blocking `flock(LOCK_EX)` (or `operation`) on `fd` in a thread, claimable by one caller at a time."""

    def __init__(self, fd: int, operation: int = fcntl.LOCK_EX) -> None:
        # its own descriptor of the same open file: the lock is the file's, and a caller that closes `fd`
        # meanwhile never leaves this thread unlocking whatever file reuses the number
        self.fd = os.dup(fd)
        self._operation = operation  # LOCK_EX; LOCK_SH to wait for an exclusive holder to let go (statelock.py)
        self._mutex = threading.Lock()
        self._taken = threading.Event()
        self._wanted = True
        self._over = False  # the thread has returned: the lock handed over, let go unwanted, or the flock failed
        self.error: OSError | None = None
        threading.Thread(target=self._wait, name="stringsh-lock-wait", daemon=True).start()

    def _wait(self) -> None:
        try:
            self._take()
        finally:
            os.close(self.fd)

    def _take(self) -> None:
        try:
            fcntl.flock(self.fd, self._operation)
        except OSError as exc:
            with self._mutex:
                self.error, self._over = exc, True
                self._taken.set()
            return
        with self._mutex:
            self._over = True
            if self._wanted:
                self._taken.set()
                return
        with contextlib.suppress(OSError):  # nobody waits any more: let the others have it
            fcntl.flock(self.fd, fcntl.LOCK_UN)

    @property
    def reusable(self) -> bool:
        """Still blocked in `flock`: a new caller can claim this wait instead of starting another."""
        with self._mutex:
            return not self._over

    def claim(self, timeout: float) -> bool | None:
        """True once this process holds the lock; False when `timeout` passed first (the wait goes on, unwanted);
        None when the wait already ended unwanted (start a new one). A failed flock raises its error."""
        with self._mutex:
            if self._over and not self._taken.is_set():
                return None
            self._wanted = True
        taken = self._taken.wait(timeout)
        with self._mutex:
            if not taken and not self._taken.is_set():
                self._wanted = False
                return False
        if self.error is not None:
            raise self.error
        return True
