"""One stateless `bash -c` in the workspace (`/exec`): same cleaning, cap, timeout and reply as the session.

stdout and stderr are merged into one pipe; the command gets its own session so a timeout can signal its whole
process group, and leftovers (`sleep 60 &`) are killed when bash returns: nothing outlives an /exec.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

from stringsh.errors import StringError
from stringsh.workspace.paths import spool_folder
from stringsh.workspace.shell.capture import OutputCapture
from stringsh.workspace.shell.clean import StreamCleaner
from stringsh.workspace.shell.procs import kill_session
from stringsh.workspace.shell.providers import Provider, ensure_state_dir, make_provider
from stringsh.workspace.shell.result import ShellResult, base_env, status_of
from stringsh.workspace.shell.settings import ShellSettings
from stringsh.workspace.shell.watch import add_notes

READ_SIZE = 65536
#: Once bash has returned, how long quiet output may take before the pipe is given up (background writers).
SETTLE = 0.05
#: Once bash has returned, the longest its leftover jobs may keep the pipe busy before they are killed.
DRAIN_MAX = 1.0


def run_once(
    command: str,
    root: str | os.PathLike[str],
    settings: ShellSettings | None = None,
    *,
    variables: Mapping[str, str] | None = None,
    timeout: float | None = None,
    spool_dir: str | os.PathLike[str] | None = None,
    provider: Provider | None = None,
) -> ShellResult:
    """Run `bash -c command` with cwd `root`; SIGTERM then SIGKILL to its group at the deadline."""
    if "\x00" in command:
        raise StringError("INVALID_PAYLOAD", "The command contains a NUL byte.")
    settings = settings or ShellSettings()
    provider = provider or make_provider(settings.sandbox, settings.writable)
    base = Path(root).resolve()
    spool = Path(spool_dir) if spool_dir is not None else spool_folder(base)
    if not base.is_dir():
        raise StringError("NOT_FOUND", f"The workspace folder does not exist: {base}")
    ensure_state_dir(base)
    argv = provider.wrap(["/bin/bash", "--norc", "--noprofile", "-c", command], base)
    watch = provider.watch(base)
    try:
        proc = subprocess.Popen(
            argv,
            cwd=base,
            env=base_env(variables),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    except OSError as exc:
        raise StringError("INTERNAL_ERROR", f"bash could not be started: {exc}") from None
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    capture = OutputCapture(settings.output_cap, spool)
    cleaner = StreamCleaner()
    limit = settings.timeout if timeout is None else timeout
    deadline = time.monotonic() + limit
    exited = _pidfd(proc.pid)
    if exited is not None:
        poller.register(exited, select.POLLIN)
    timed_out = False
    stage = 0
    eof = False
    try:
        while True:
            now = time.monotonic()
            if proc.poll() is not None:
                if not eof:
                    _drain(fd, capture, cleaner)
                break
            if now >= deadline:
                timed_out = True
                sig = signal.SIGTERM if stage == 0 else signal.SIGKILL
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, sig)
                stage += 1
                deadline = now + (settings.kill_grace if stage == 1 else 2.0)
                if stage > 2:
                    proc.kill()
                continue
            wait = min(deadline - now, 0.2 if exited is not None or not eof else 0.02)
            events = poller.poll(wait * 1000)
            if not eof and any(ready == fd for ready, _ in events):
                data = os.read(fd, READ_SIZE)
                if not data:  # the pipe closed; bash may still run (`exec >&-; sleep 9`): wait, with the deadline
                    eof = True
                    poller.unregister(fd)
                capture.write(cleaner.feed(data))
    finally:
        kill_session(proc.pid)
        proc.stdout.close()
        proc.wait()
        if exited is not None:
            os.close(exited)
    capture.write(cleaner.finish())
    code = proc.returncode
    status = status_of(code if code >= 0 else None, -code if code < 0 else None)
    result = ShellResult(status, str(base), capture.text(), timed_out, limit)
    return result if watch is None else add_notes(result, watch.check())


def _pidfd(pid: int) -> int | None:
    """A descriptor that polls readable when `pid` exits (Linux 5.3+), so bash's end is seen at once."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _drain(fd: int, capture: OutputCapture, cleaner: StreamCleaner) -> None:
    """Read what bash left in the pipe; stop at EOF, once it stays quiet for SETTLE seconds, or after DRAIN_MAX
    seconds (a job left behind that never stops printing is killed with the rest of the session)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    until = time.monotonic() + DRAIN_MAX
    while time.monotonic() < until and poller.poll(SETTLE * 1000):
        data = os.read(fd, READ_SIZE)
        if not data:
            return
        capture.write(cleaner.feed(data))
