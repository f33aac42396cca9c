"""Finding and ending every process of a shell's session, so no job outlives its shell or its /exec."""

from __future__ import annotations

import contextlib
import os
import signal
import time


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
