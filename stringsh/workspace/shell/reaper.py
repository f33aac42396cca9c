"""An unsandboxed topic shell's jobs, and its one-shots, end with stringsh, however stringsh ends.

Without a sandbox there is no pid namespace to end with the shell (bubblewrap's `--die-with-parent` does that,
lifeline.py). Closing a shell sweeps its session (procs.stop_shell), and a stringsh that ends on SIGTERM or Ctrl-C
closes its shells; one killed with SIGKILL, or crashed, closes nothing. Its pty then hangs up the shell and the
command in front, but bash, interrupted in the middle of a command, does not pass the hangup on to the jobs that
command started in the background (`sleep 300 &`): they ran on, reparented to init, unseen. A one-shot (`/exec`,
an action, git: runner.py) is swept by the thread that waits for it, which dies with stringsh.

So stringsh starts one small process of its own (this file run as a script by the same interpreter, in a session
of its own, importing nothing of the package) and tells it, one line each, the session of every unsandboxed topic
shell and one-shot it starts (`+SID`) and ends (`-SID`). The pipe it reads is stringsh's alone (not inherited by
any child): when stringsh dies, the pipe ends, and the process ends every process of the sessions still named,
then itself. A stringsh that ends normally has forgotten each one it ended; the process then ends with nothing to
do.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable


def session_members(session: int) -> list[int]:
    """Live processes whose session id is `session` (Linux /proc; empty elsewhere); zombies do not count."""
    members = []
    for entry in os.scandir("/proc") if os.path.isdir("/proc") else []:
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 3 and int(fields[3]) == session and fields[0] not in (b"Z", b"X"):
            members.append(int(entry.name))
    return members


def kill_session(session: int, wait: float = 2.0) -> None:
    """SIGKILL every process of the session and wait (bounded) until they are gone."""
    deadline = time.monotonic() + wait
    while (left := session_members(session)) and time.monotonic() < deadline:
        for pid in left:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)


def serve(lines: Iterable[bytes]) -> set[int]:
    """Follow `+SID` and `-SID` lines to their end, then end every session still named; returns those."""
    sessions: set[int] = set()
    for line in lines:
        sign, number = line[:1], line[1:].strip()
        if sign in (b"+", b"-") and number.isdigit():
            (sessions.add if sign == b"+" else sessions.discard)(int(number))
    for session in sessions:
        kill_session(session)
    return sessions


class Reaper:
    """stringsh's side: the process above, started with the first session named, and again, told every session
    still named, if it ended."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._sessions: set[int] = set()
        #: The pipes of reapers that ended, kept open: a child forked to write to one (`pipe`) never writes into
        #: another file that took its number.
        self._ended: list[object] = []

    def watch(self, session: int) -> None:
        self._tell("+", session)

    def forget(self, session: int) -> None:
        self._tell("-", session)

    def named(self, session: int) -> None:
        """A session its child named itself (`name_own_session`): kept to tell a reaper started again, not sent."""
        with self._lock:
            self._sessions.add(session)

    def pipe(self) -> int | None:
        """The descriptor a child may name its own session on (`name_own_session`, after fork, before exec), the
        process started first if need be; None when it cannot be."""
        with self._lock, contextlib.suppress(OSError):
            self._running()
            assert self._proc is not None and self._proc.stdin is not None
            return self._proc.stdin.fileno()
        return None

    def _running(self) -> bool:
        """(Holding the lock.) Start the process unless it runs, telling it every session named; whether it ran."""
        if self._proc is not None and self._proc.poll() is None:
            return True
        if self._proc is not None:
            self._ended.append(self._proc.stdin)
        self._proc = _start()
        self._send("".join(f"+{each}\n" for each in self._sessions))
        return False

    def _send(self, lines: str) -> None:
        assert self._proc is not None and self._proc.stdin is not None
        if lines:
            self._proc.stdin.write(lines.encode("ascii"))
            self._proc.stdin.flush()

    def _tell(self, sign: str, session: int) -> None:
        with self._lock:
            (self._sessions.add if sign == "+" else self._sessions.discard)(session)
            if sign == "-" and (self._proc is None or self._proc.poll() is not None):
                return  # nothing to tell a process that is not there
            with contextlib.suppress(OSError):  # best effort: a shell or one-shot ended normally is swept anyway
                if self._running():
                    self._send(f"{sign}{session}\n")


def name_own_session(pipe: int) -> None:
    """In a child started in a session of its own, before it execs: name that session on the reaper's pipe, so no
    moment passes where the program runs and the reaper does not know it (stringsh killed right after the fork).
    SIGPIPE is at its default here (subprocess restored it): a reaper that has just ended must not end the child
    with it, so the signal is held while writing and taken back if it came."""
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGPIPE})
    try:
        with contextlib.suppress(OSError):
            os.write(pipe, b"+%d\n" % os.getpid())
        signal.sigtimedwait({signal.SIGPIPE}, 0)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _start() -> subprocess.Popen[bytes]:
    # -I -S: the standard library only, nothing of the workspace's or the user's site; its own session, so no
    # terminal's Ctrl-C and no signal to stringsh's group reaches it; `/` as its folder, so it holds no other busy
    return subprocess.Popen([sys.executable, "-I", "-S", os.path.abspath(__file__)], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True, cwd="/")


REAPER = Reaper()


if __name__ == "__main__":
    serve(sys.stdin.buffer)
