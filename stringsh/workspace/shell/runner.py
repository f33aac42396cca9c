"""The one process runner: every stateless `bash -c` (`/exec`, CLI actions, the JSON tools' `bash`) and every other
program the engine runs by argument list (git, `ProcessCall`) starts here.

One place owns the hard parts: the command gets its own session, so at the deadline SIGTERM reaches its whole
process group and SIGKILL follows `kill_grace` seconds later; once bash has returned, what it left in the pipes is
read for at most DRAIN_MAX seconds, and then every process still in its session is killed, so nothing outlives a
run. Callers choose merged or separate streams (by passing one sink or two), the environment, the working folder,
the sandbox (a `wrap` of the command line, a provider's) and stdin; they shape the output and the reply.
"""

from __future__ import annotations

import contextlib
import functools
import os
import select
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from stringsh.errors import StringError
from stringsh.workspace.shell.reaper import REAPER, kill_session, name_own_session

READ_SIZE = 65536
#: Once bash has returned, the longest its leftover jobs may keep a pipe open before they are killed.
DRAIN_MAX = 1.0
#: After SIGKILL to the group, how long bash itself gets to go before it is killed directly and the run ends.
LAST_WAIT = 2.0
#: How often the run looks at bash when the kernel cannot tell it at once that bash ended (no pidfd).
POLL_STEP = 0.02

#: Where output goes: called with each chunk of raw bytes as it arrives.
Sink = Callable[[bytes], None]


@dataclass(frozen=True)
class BashCall:
    """One `bash -c`.

    `cwd` is where the process starts; `workdir` (inside the sandbox) where bash then runs, when it differs.
    `wrap` rewrites the command line (a sandbox provider's). `stdin` None reads from /dev/null. `settle`: once bash
    has returned, stop reading after this many quiet seconds (None: read to the end, at most DRAIN_MAX).
    """

    command: str
    cwd: Path
    env: Mapping[str, str]
    timeout: float
    kill_grace: float = 5.0
    wrap: Callable[[list[str]], list[str]] | None = None
    workdir: Path | None = None
    stdin: bytes | None = None
    settle: float | None = None
    bash: str = "/bin/bash"
    #: Its session named to reaper.py while it runs: no sandbox ends it with stringsh.
    reaped: bool = False

    def argv(self) -> list[str]:
        inner = [self.bash, "--norc", "--noprofile", "-c", self.command]
        if self.workdir is not None:
            inner = ["/usr/bin/env", "-C", str(self.workdir), *inner]  # a sandbox may start elsewhere
        return self.wrap(inner) if self.wrap is not None else inner


    @property
    def name(self) -> str:
        return "bash"

    def check(self) -> None:
        check_command(self.command)


@dataclass(frozen=True)
class ProcessCall:
    """One program by argument list, no shell (git): the same session, deadline, group kill and drain as bash."""

    args: tuple[str, ...]
    cwd: Path
    env: Mapping[str, str]
    timeout: float
    kill_grace: float = 5.0
    stdin: bytes | None = None
    settle: float | None = None
    reaped: bool = False  # as BashCall's

    def argv(self) -> list[str]:
        return list(self.args)

    @property
    def name(self) -> str:
        return os.path.basename(self.args[0])

    def check(self) -> None:
        for arg in self.args:
            check_command(arg)


@dataclass
class Ended:
    """How a run ended: the raw return code (negative: killed by that signal), whether the deadline stopped it,
    and how long it took."""

    returncode: int
    timed_out: bool
    duration_ms: int

    @property
    def status(self) -> int:
        """The end as a shell prints `$?`: 128 + N for a process killed by signal N."""
        return self.returncode if self.returncode >= 0 else 128 - self.returncode


@dataclass
class Stream:
    """A sink that keeps the first `cap` bytes of one stream and counts how many it wrote in all."""

    cap: int
    data: bytearray = field(default_factory=bytearray)
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
class Tail:
    """A sink that keeps the last `cap` bytes of one stream (an error message ends with its reason)."""

    cap: int
    data: bytearray = field(default_factory=bytearray)

    def add(self, chunk: bytes) -> None:
        self.data += chunk
        if len(self.data) > self.cap:
            del self.data[: len(self.data) - self.cap]


def execute(call: BashCall | ProcessCall, out: Sink, err: Sink | None = None) -> Ended:
    """Run `call`; stdout goes to `out`, stderr to `err` or, without one, merged into `out` (one pipe, so the
    order the command wrote in is kept). Each sink bounds what it keeps (Stream, Tail, shell/capture.py's
    OutputCapture): the runner holds no output itself."""
    call.check()
    started = time.monotonic()
    pipe = REAPER.pipe() if call.reaped else None
    try:
        proc = subprocess.Popen(
            call.argv(),
            cwd=call.cwd,
            env=dict(call.env),
            stdin=subprocess.DEVNULL if call.stdin is None else subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if err is None else subprocess.PIPE,
            start_new_session=True,
            preexec_fn=None if pipe is None else functools.partial(name_own_session, pipe),
        )
    except OSError as exc:
        raise StringError("INTERNAL_ERROR", f"{call.name} could not be started: {exc}") from None
    if pipe is not None:
        REAPER.named(proc.pid)  # for a reaper started again later: this one heard it from the child
    if call.stdin is not None:
        threading.Thread(target=_feed, args=(proc, call.stdin), name="stringsh-bash-stdin", daemon=True).start()
    pipes = [proc.stdout, proc.stderr] if err is not None else [proc.stdout]
    sinks = {pipe.fileno(): sink for pipe, sink in zip(pipes, [out, err], strict=False) if pipe is not None}
    exited = _pidfd(proc.pid)
    timed_out = False
    try:
        timed_out = _pump(proc, sinks, exited, call, started + call.timeout)
    finally:
        kill_session(proc.pid)
        if pipe is not None:
            REAPER.forget(proc.pid)
        for pipe in pipes:
            if pipe is not None:
                pipe.close()
        proc.wait()
        if exited is not None:
            os.close(exited)
    assert proc.returncode is not None
    return Ended(proc.returncode, timed_out, round((time.monotonic() - started) * 1000))


def _pump(proc: subprocess.Popen[bytes], sinks: dict[int, Sink], exited: int | None, call: BashCall | ProcessCall,
          deadline: float) -> bool:
    """Read the pipes into their sinks until bash has returned and they are drained; True when the deadline
    passed (SIGTERM to the group then, SIGKILL `kill_grace` seconds later, then bash itself)."""
    poller = select.poll()
    for fd in sinks:
        poller.register(fd, select.POLLIN)
    if exited is not None:
        poller.register(exited, select.POLLIN)
    open_fds = set(sinks)
    stage = 0
    timed_out = False
    ended_at: float | None = None
    quiet_since = 0.0
    while True:
        now = time.monotonic()
        if ended_at is None and proc.poll() is not None:
            ended_at = quiet_since = now
            if exited is not None:
                poller.unregister(exited)
                exited = None
        if ended_at is not None and _drained(open_fds, now, ended_at, quiet_since, call.settle):
            return timed_out
        if ended_at is None and now >= deadline:
            timed_out = True
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGTERM if stage == 0 else signal.SIGKILL)
            stage += 1
            deadline = now + (call.kill_grace if stage == 1 else LAST_WAIT)
            if stage > 2:
                proc.kill()
                return timed_out
            continue
        wait = _wait(now, deadline, ended_at, call.settle, quiet_since, exited is not None)
        if not open_fds and exited is None:  # the pipes closed, bash still runs (`exec >&-; sleep 9`)
            time.sleep(wait)
            continue
        for fd, _ in poller.poll(wait * 1000):
            if fd not in open_fds:
                continue  # bash's pidfd: seen at the top of the loop
            chunk = os.read(fd, READ_SIZE)
            if chunk:
                sinks[fd](chunk)
                quiet_since = time.monotonic()
            else:
                poller.unregister(fd)
                open_fds.discard(fd)


def _drained(open_fds: set[int], now: float, ended_at: float, quiet_since: float, settle: float | None) -> bool:
    """After bash returned: every pipe closed, or DRAIN_MAX passed, or (with `settle`) the pipes stayed quiet."""
    if not open_fds or now - ended_at >= DRAIN_MAX:
        return True
    return settle is not None and now - quiet_since >= settle


def _wait(now: float, deadline: float, ended_at: float | None, settle: float | None, quiet_since: float,
          pidfd: bool) -> float:
    """How long the next poll may block: never past the deadline or the drain's end; without a pidfd, short
    enough to see bash return soon."""
    if ended_at is not None:
        until = ended_at + DRAIN_MAX
        if settle is not None:
            until = min(until, quiet_since + settle)
        return max(0.0, until - now)
    return max(0.0, min(deadline - now, 0.2 if pidfd else POLL_STEP))


def _feed(proc: subprocess.Popen[bytes], data: bytes) -> None:
    """Write stdin on its own thread (a command that does not read it must not block the run), then close it."""
    assert proc.stdin is not None
    with contextlib.suppress(OSError, ValueError):
        proc.stdin.write(data)
    with contextlib.suppress(OSError, ValueError):
        proc.stdin.close()


def _pidfd(pid: int) -> int | None:
    """A descriptor that polls readable when `pid` exits (Linux 5.3+), so bash's end is seen at once."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def check_command(command: str) -> None:
    """A NUL byte cannot reach bash (argv is C strings): refused before anything starts."""
    if "\x00" in command:
        raise StringError("INVALID_PAYLOAD", "The command contains a NUL byte.")


def workspace_base(root: str | os.PathLike[str]) -> Path:
    """The resolved workspace folder a run starts in, or NOT_FOUND when it is gone."""
    base = Path(root).resolve()
    if not base.is_dir():
        raise StringError("NOT_FOUND", f"The workspace folder does not exist: {base}",
                          "Create it, or start stringsh in a folder that exists.")
    return base
