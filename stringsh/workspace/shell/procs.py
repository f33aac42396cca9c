"""The shell's processes: its child set-up, its terminal modes, signals to its groups, and finding and ending
every process of its session, so no job outlives its shell or its /exec."""

from __future__ import annotations

import contextlib
import os
import signal
import termios
import time

import pexpect


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


def child_setup(cwd: str) -> None:
    """In the child, before bash starts: the workspace as cwd; default SIGPIPE/SIGXFSZ (Python ignores them,
    and `yes | head` would complain); default SIGINT/SIGQUIT, as a terminal's shell has them, also when stringsh
    was started ignoring them (`stringsh daemon &` in a script): else bash and every program it runs keep
    ignoring the Ctrl-C that interrupts a command; no output post-processing (a newline stays a newline), which
    also makes the pty pass bulk output five times faster."""
    os.chdir(cwd)
    for name in ("SIGPIPE", "SIGXFZ", "SIGXFSZ", "SIGINT", "SIGQUIT"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    attrs = termios.tcgetattr(0)
    attrs[1] &= ~termios.OPOST
    termios.tcsetattr(0, termios.TCSANOW, attrs)


def quiet_terminal(fd: int) -> None:
    """Undo a program's `stty -F /dev/tty echo opost` (the master's termios calls act on the shell's side)."""
    with contextlib.suppress(termios.error, OSError):
        attrs = termios.tcgetattr(fd)
        if attrs[3] & termios.ECHO or attrs[1] & termios.OPOST:
            attrs[3] &= ~termios.ECHO
            attrs[1] &= ~termios.OPOST
            termios.tcsetattr(fd, termios.TCSANOW, attrs)


def stop_shell(proc: pexpect.spawn) -> None:
    """Close the pty (SIGHUP to the shell, which passes it to its jobs), kill the shell, then sweep its session.

    The sweep catches jobs that outlive a shell that exited on its own (`sleep 60 &` then `exit`): they are
    in the shell's session, which pexpect made with setsid; under bubblewrap the pid namespace also ends.
    """
    session = proc.pid
    proc.ptyproc.delayafterclose = 0.02
    proc.ptyproc.delayafterterminate = 0.05
    with contextlib.suppress(OSError, pexpect.ExceptionPexpect):
        proc.close(force=True)
    kill_session(session)


def program_of(pid: int) -> str:
    """The program a process runs (`/proc/<pid>/comm`; `bash` for a fork of the shell not yet started), or ""."""
    try:
        with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as handle:
            return handle.read().rstrip("\n")
    except OSError:
        return ""


def ignores_sigint(pid: int) -> bool:
    """Whether the process ignores SIGINT (`trap '' INT` in the shell), from /proc; False when unknown."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as handle:
            ignored = next((line.split()[1] for line in handle if line.startswith("SigIgn:")), "0")
    except (OSError, IndexError, UnicodeDecodeError):
        return False
    return bool(int(ignored, 16) >> (signal.SIGINT - 1) & 1)


def signal_group(group: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, sig)
