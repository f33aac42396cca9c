"""One stateless `bash -c` with stdout and stderr kept apart and byte-exact (the JSON tools' `bash`).

`/exec` (oneshot.py) merges both streams and cleans the text for a reader; an agent's tool call wants each stream
as the command wrote it, the first `cap` bytes of each kept and the totals counted. Same provider (sandbox), same
environment, same end: SIGTERM to the whole group at the deadline, SIGKILL `kill_grace` seconds later, and
nothing outlives the call.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from stringsh.errors import StringError
from stringsh.workspace.shell.procs import kill_session
from stringsh.workspace.shell.providers import Provider, ensure_state_dir
from stringsh.workspace.shell.result import TIMEOUT_STATUS, base_env, status_of
from stringsh.workspace.shell.settings import ShellSettings

READ_SIZE = 65536
#: Once bash has returned, the longest its leftover jobs may keep a pipe open before they are killed.
DRAIN_MAX = 1.0


@dataclass
class Stream:
    """The first `cap` bytes of one stream and how many it wrote in all."""

    cap: int
    data: bytearray
    total: int = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.cap - len(self.data)
        if room > 0:
            self.data += chunk[:room]

    @property
    def truncated(self) -> bool:
        return self.total > self.cap


@dataclass
class StreamsResult:
    """`exit_code` is TIMEOUT_STATUS (124) for every provider when the deadline stopped the command."""

    stdout: Stream
    stderr: Stream
    exit_code: int
    timed_out: bool
    duration_ms: int
    notes: list[str]


def run_streams(command: str, root: Path, settings: ShellSettings, provider: Provider, *, cwd: Path | None = None,
                timeout: float | None = None, cap: int = 50 * 1024,
                variables: Mapping[str, str] | None = None) -> StreamsResult:
    """Run `bash -c command` in `cwd` (a folder inside `root`, already confined by the caller)."""
    if "\x00" in command:
        raise StringError("INVALID_PAYLOAD", "The command contains a NUL byte.")
    base = root.resolve()
    if not base.is_dir():
        raise StringError("NOT_FOUND", f"The workspace folder does not exist: {base}")
    ensure_state_dir(base)
    inner = ["/bin/bash", "--norc", "--noprofile", "-c", command]
    if cwd is not None and cwd != base:
        inner = ["/usr/bin/env", "-C", str(cwd), *inner]  # the same for both providers: bwrap starts in `root`
    argv = provider.wrap(inner, base)
    watch = provider.watch(base)
    started = time.monotonic()
    try:
        proc = subprocess.Popen(argv, cwd=base, env=base_env(variables), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    except OSError as exc:
        raise StringError("INTERNAL_ERROR", f"bash could not be started: {exc}") from None
    assert proc.stdout is not None and proc.stderr is not None
    streams = {proc.stdout.fileno(): Stream(cap, bytearray()), proc.stderr.fileno(): Stream(cap, bytearray())}
    out, err = streams.values()
    limit = settings.timeout if timeout is None else timeout
    timed_out = False
    try:
        timed_out = _pump(proc, streams, started + limit, settings.kill_grace)
    finally:
        kill_session(proc.pid)
        proc.stdout.close()
        proc.stderr.close()
        proc.wait()
    code = proc.returncode
    status = TIMEOUT_STATUS if timed_out else status_of(code if code >= 0 else None, -code if code < 0 else None)
    notes = watch.check() if watch is not None else []
    return StreamsResult(out, err, status, timed_out, round((time.monotonic() - started) * 1000), notes)


def _pump(proc: subprocess.Popen[bytes], streams: dict[int, Stream], deadline: float, grace: float) -> bool:
    """Read both pipes until they close (or, once bash has returned, for DRAIN_MAX more); True when the deadline
    passed: SIGTERM to the group then, SIGKILL `grace` seconds later."""
    poller = select.poll()
    for fd in streams:
        poller.register(fd, select.POLLIN)
    open_fds = set(streams)
    stage = 0
    timed_out = False
    exited_at: float | None = None
    while True:
        now = time.monotonic()
        if exited_at is None and proc.poll() is not None:
            exited_at = now
        if exited_at is not None and (not open_fds or now - exited_at > DRAIN_MAX):
            break
        if now >= deadline and exited_at is None:
            timed_out = True
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGTERM if stage == 0 else signal.SIGKILL)
            stage += 1
            deadline = now + (grace if stage == 1 else 2.0)
            if stage > 2:
                proc.kill()
                break
            continue
        wait = max(0.0, min(deadline - now, 0.1 if exited_at is None else 0.02))
        if not open_fds:  # the pipes closed, bash still runs (`exec >&- 2>&-; sleep 9`): wait, with the deadline
            time.sleep(wait)
            continue
        for fd, _ in poller.poll(wait * 1000):
            chunk = os.read(fd, READ_SIZE)
            if chunk:
                streams[fd].add(chunk)
            else:
                poller.unregister(fd)
                open_fds.discard(fd)
    return timed_out
