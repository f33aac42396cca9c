"""The shell's processes: its child set-up, its terminal modes, signals to its groups, and ending every process of
its session (reaper.py finds them), so no job outlives its shell or its /exec."""

from __future__ import annotations

import contextlib
import os
import signal
import termios

import pexpect

from stringsh.workspace.shell.reaper import kill_session


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
