"""When a Ctrl-C for the topic shell's command may be sent, so that none is lost whatever moment it comes.

A command goes through three moments: its shell starting and its line not written yet; the line written but not
yet run by bash (bash prints runline.started_mark once it runs it); running. A SIGINT in the second moment reaches
a bash reading its input, which drops the line (no sentinel ever comes) or runs it anyway (the Ctrl-C is lost). So
a Ctrl-C is held until the line runs, and one held before the line is written stops the command before it runs,
as a terminal's Ctrl-C discards a line its shell has not read. A Ctrl-C sent while bash itself is in the foreground
may meet it starting a program (forked, not yet in its own group): bash then waits for that program and lets it
run. And a program bash has forked but not yet started (still bash's code: `/proc/<pid>/comm` says `bash`) may
take a Ctrl-C as bash does and then start anyway. So after a Ctrl-C sent to bash or to such a fork, each program
that comes to the foreground next, or that fork once it starts its program, gets the Ctrl-C too (`late`).

The session (session.py) does the signalling; this keeps the state, from any thread or a signal handler (the plain
loop's: the lock is re-entrant).
"""

from __future__ import annotations

import threading


class Interrupts:
    """The state of Ctrl-C for one shell's current command."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        #: True from the start of a user command (before its shell starts) until its reply.
        self.running = False
        #: Whether a Ctrl-C came for the current command (a command file that never ran is then not run again).
        self.interrupted = False
        self._started = False
        self._held = False
        self._late: set[tuple[int, str]] | None = None

    def begin(self) -> None:
        """A user command starts: a Ctrl-C from now on is its own."""
        with self._lock:
            self.running, self.interrupted, self._started, self._held, self._late = True, False, False, False, None

    def end(self) -> None:
        with self._lock:
            self.running = self._started = self._held = False
            self._late = None

    def ask(self) -> bool | None:
        """A Ctrl-C came: None when no command runs, True when it is held (the line does not run yet), False
        when it is to be sent now."""
        with self._lock:
            if not self.running:
                return None
            self.interrupted = True
            if not self._started:
                self._held = True
            return self._held

    def line_runs(self) -> bool:
        """Bash printed the start mark; whether a held Ctrl-C is now to be sent."""
        with self._lock:
            self._started = True
            held, self._held = self._held, False
            return held

    def cancels_line(self) -> bool:
        """Before the line is written: whether a held Ctrl-C stops the command before it runs."""
        with self._lock:
            held, self._held = self._held, False
            return held

    def sent(self, group: int, program: str) -> None:
        """A SIGINT went to the foreground `group`, whose leader runs `program`; when that is bash (the shell
        itself, or a fork not started yet), watch for late ones."""
        with self._lock:
            if program == "bash" and self._late is None:
                self._late = {(group, program)}

    def late(self, group: int, program: str) -> bool:
        """Whether the foreground `group` running `program` came after a Ctrl-C reached bash or one of its forks
        and has not had it yet (once each)."""
        with self._lock:
            if self._late is None or (group, program) in self._late:
                return False
            self._late.add((group, program))
            return True

    def watching(self) -> bool:
        with self._lock:
            return self._late is not None
