r"""One persistent bash per topic in a pty, with an end-of-command sentinel the command cannot fake.

The protocol (the typed line, the command file, the sentinel and its health word) is in runline.py. stdin is
/dev/null; bash runs without readline (no completion, no echo, no line-length limit since the command is in a
file), and an unclosed quote is a `source` syntax error, never a shell waiting for more input. A shell whose
protocol the user broke (`enable -n source`, `ulimit -n 4`, a DEBUG trap) is restarted with a note, as a dead
one is.
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
import shutil
import signal
import tempfile
import time
import weakref
from collections.abc import Mapping
from pathlib import Path

import pexpect

from stringsh.errors import StringError
from stringsh.workspace.paths import spool_folder
from stringsh.workspace.shell.capture import OutputCapture
from stringsh.workspace.shell.clean import StreamCleaner
from stringsh.workspace.shell.interrupts import Interrupts
from stringsh.workspace.shell.lifeline import start_for_life
from stringsh.workspace.shell.live import LineStream
from stringsh.workspace.shell.privatetmp import UNTIL_SHELL, PrivateTmp
from stringsh.workspace.shell.procs import (
    child_setup,
    ignores_sigint,
    program_of,
    quiet_terminal,
    signal_group,
    stop_shell,
)
from stringsh.workspace.shell.providers import Provider, ensure_state_dir, make_provider
from stringsh.workspace.shell.ptyreader import PtyReader
from stringsh.workspace.shell.reaper import REAPER
from stringsh.workspace.shell.result import KILLED_STATUS, ShellResult, base_env, exportable, status_of
from stringsh.workspace.shell.runline import (
    BROKEN,
    DEBUG_TRAP,
    HEALTHY,
    NOT_RUN,
    ansi_quote,
    file_prelude,
    find_sentinel,
    run_line,
    sentinel_pattern,
    stale_pattern,
    started_mark,
)
from stringsh.workspace.shell.settings import ShellSettings
from stringsh.workspace.shell.watch import Poller, add_notes

#: Bytes kept unscanned at the end of the buffer: longer than any sentinel (secret, counter, status, PATH_MAX cwd).
HOLD = 4096 + 256
#: Longest wait on the pty before checking that the shell is still alive (a background job may hold the pty).
POLL = 0.2
#: Inherited variables that would change how the shell starts or prompts.
SHELL_HOOKS = frozenset({"PS0", "PS1", "PS2", "PS4", "PROMPT_COMMAND", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS"})
BASH = ("/bin/bash", "--norc", "--noprofile", "--noediting", "-i")
#: How long a new shell may take to show its first prompt.
START_TIMEOUT = 15.0
#: After SIGKILL to the command's group, how long to wait for the prompt before killing the shell itself.
AFTER_KILL = 2.0
#: The status of a command a Ctrl-C stopped before bash read its line (128 + SIGINT, as bash reports it).
INTERRUPTED_STATUS = 128 + signal.SIGINT
#: First line of the reply whose command a broken shell could not start (runline.NOT_RUN), run in a new shell.
NOT_RUN_NOTE = (
    "[shell restarted: previous session could not run commands (a builtin disabled with enable -n, a descriptor"
    " limit or a trap); cwd and exports reset]"
)
#: Per health word: the last line of the reply that found the shell so, and the first line of the next reply.
BROKEN_NOTES = {
    DEBUG_TRAP: (
        "[shell ended: a DEBUG trap runs inside the shell's own protocol; the next command starts a new one]",
        "[shell restarted: previous session had a DEBUG trap; cwd and exports reset]",
    ),
    BROKEN: (
        "[shell ended: a builtin its protocol needs failed (enable -n, a descriptor limit); the next command starts"
        " a new one]",
        "[shell restarted: previous session could not run its protocol; cwd and exports reset]",
    ),
}


class ShellSession:
    """A persistent shell rooted in the workspace; `run` never leaves it waiting, a dead one restarts."""

    def __init__(
        self,
        root: str | os.PathLike[str],
        settings: ShellSettings | None = None,
        *,
        variables: Mapping[str, str] | None = None,
        spool_dir: str | os.PathLike[str] | None = None,
        provider: Provider | None = None,
    ) -> None:
        self.root = Path(root).resolve()
        self.settings = settings or ShellSettings()
        self.provider = provider or make_provider(self.settings.sandbox, self.settings.writable)
        self.spool_dir = Path(spool_dir) if spool_dir is not None else spool_folder(self.root)
        self._variables = exportable(variables)
        self._proc: pexpect.spawn | None = None
        self._private: Path | None = None
        self._tmp: PrivateTmp | None = None
        self._secret = ""
        self._count = 0
        self._idle_pgrp = 0
        self._pending_note: str | None = None
        self._watch: Poller | None = None
        self._leftover = b""
        #: The health word of the last sentinel (runline.py).
        self._health = HEALTHY
        self.cwd = str(self.root)
        #: When a Ctrl-C for the current command may be sent (interrupts.py).
        self._interrupts = Interrupts()

    # -- life cycle ------------------------------------------------------------------------------------

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None and self._proc.isalive() else None

    @property
    def alive(self) -> bool:
        return self.pid is not None

    def start(self) -> None:
        """Start the shell now rather than with the first command (ops/shell.py warm_topic_shell)."""
        if self._proc is None:
            self._start()

    def _start(self) -> None:
        if not self.root.is_dir():
            raise StringError("NOT_FOUND", f"The workspace folder does not exist: {self.root}",
                              "Create it, or start stringsh in a folder that exists.")
        ensure_state_dir(self.root)
        self._private = Path(tempfile.mkdtemp(prefix="stringsh-shell-"))
        # removed by close(), or when the session is dropped or Python exits without closing it
        weakref.finalize(self, shutil.rmtree, self._private, ignore_errors=True)
        self._tmp = self.provider.private_tmp(self.root)  # the sandbox's /tmp: what is written there is named
        if self._tmp is not None:
            weakref.finalize(self, self._tmp.remove)
        self._secret = secrets.token_hex(8)
        self._count = 0
        self._leftover = b""
        self.cwd = str(self.root)
        try:
            argv = self.provider.wrap(BASH, self.root, [self._private], self._tmp)
        except BaseException:
            self._cleanup()  # a sandbox that cannot start (a walk cut short) leaves no folder behind
            raise
        if self._watch is None:  # one per session: a restarted shell still owes what the first one wrote
            watch = self.provider.watch(self.root)  # after wrap: it makes `.git/hooks` in an existing `.git`
            self._watch = None if watch is None else Poller(watch)
            if self._watch is not None:
                weakref.finalize(self, self._watch.stop)  # a session dropped unclosed leaves no thread behind
        if self._watch is not None:
            self._watch.stop()  # no thread of ours across the fork
        env = {k: v for k, v in base_env(self._variables, self.settings.environment).items() if k not in SHELL_HOOKS}
        try:
            # cwd is set in preexec_fn: ptyprocess lets a failed chdir escape into the forked child's Python
            self._proc = start_for_life(functools.partial(
                pexpect.spawn, argv[0], argv[1:], env=env, echo=False, dimensions=(50, 200),
                preexec_fn=functools.partial(child_setup, str(self.root)),
            ), stop_shell)
        except (OSError, pexpect.ExceptionPexpect) as exc:
            self._cleanup()
            raise StringError("INTERNAL_ERROR", f"The shell could not be started: {exc}") from None
        if not self.provider.ends_with_stringsh:
            REAPER.watch(self._proc.pid)  # its session: pexpect made the shell its leader
        result = self._send("\\builtin set +o history +H", time.monotonic() + START_TIMEOUT, 65536, escalate=False)
        if result.timed_out or self._proc is None:
            self.close()
            self._pending_note = None
            raise StringError("INTERNAL_ERROR", f"The shell did not start: {result.output[:300] or 'no prompt'}")
        self._idle_pgrp = os.tcgetpgrp(self._proc.child_fd)
        if self._watch is not None:
            self._watch.start()

    def close(self) -> None:
        """End the shell and its jobs (SIGHUP through the pty, then SIGKILL) and remove the private files."""
        proc, self._proc = self._proc, None
        if proc is not None:
            self._stop(proc)
        self._cleanup()
        if self._watch is not None:
            self._watch.stop()
            self._watch.watch.check("while the shell ran")  # a background job's last writes; nobody reads a reply

    def _stop(self, proc: pexpect.spawn) -> None:
        """End a shell of this session and its jobs; the reaper need no longer end them (reaper.py)."""
        stop_shell(proc)
        if not self.provider.ends_with_stringsh:
            REAPER.forget(proc.pid)

    def _cleanup(self) -> None:
        if self._private is not None:
            shutil.rmtree(self._private, ignore_errors=True)
            self._private = None
        if self._tmp is not None:
            self._tmp.remove()
            self._tmp = None

    def _ended(self, proc: pexpect.spawn, *, killed: bool = False) -> int:
        """Reap a shell that went away (or kill it) and remember to say so in the next reply."""
        status = KILLED_STATUS if killed else None
        self._stop(proc)
        if status is None:
            status = status_of(proc.exitstatus, proc.signalstatus)
        self._proc = None
        self._cleanup()
        self._pending_note = f"[shell restarted: previous session ended (exit {status}); cwd and exports reset]"
        return status

    # -- commands --------------------------------------------------------------------------------------

    def run(
        self, command: str, *, timeout: float | None = None, variables: Mapping[str, str] | None = None
    ) -> ShellResult:
        """Run `command` (any bash text, several lines allowed) and return its status, cwd and output."""
        if "\x00" in command:
            raise StringError("INVALID_PAYLOAD", "The command contains a NUL byte.")
        wanted = exportable(variables) if variables is not None else self._variables
        limit = self.settings.timeout if timeout is None else timeout
        result, removed = self._attempt(command, wanted, limit)
        interrupted = self._interrupts.interrupted
        if self._health == NOT_RUN and not result.timed_out and not interrupted and self._proc is not None:
            # the command file never started, so nothing of the command ran: a new shell runs it
            self._restart(NOT_RUN_NOTE)
            result, more = self._attempt(command, wanted, limit)
            removed += more
        elif self._health in BROKEN_NOTES and self._proc is not None:
            ended, note = BROKEN_NOTES[self._health]
            self._restart(note)
            result.output = f"{result.output}\n{ended}" if result.output else ended
        removed += self.provider.notes(self.root, result.output, self._tmp, UNTIL_SHELL)
        return add_notes(result, removed)

    def _attempt(self, command: str, wanted: dict[str, str], limit: float) -> tuple[ShellResult, list[str]]:
        """One run of `command` (starting the shell if needed); the protected-path notes come apart."""
        self._interrupts.begin()  # a Ctrl-C from here on is this command's, even while its shell starts
        try:
            if self._proc is not None and not self._proc.isalive():
                self._ended(self._proc)
            notes: list[str] = []
            if self._proc is None:
                self._variables = wanted
                self._start()
                if self._pending_note:
                    notes.append(self._pending_note)
                    self._pending_note = None
            prefix = self._export_lines(wanted)
            self._variables = wanted
            deadline = time.monotonic() + limit
            removed = [] if self._watch is None else self._watch.before("since the last command")
            try:
                result = self._send(command, deadline, self.settings.output_cap, escalate=True, prelude=prefix,
                                    live=True)
            except BaseException:
                if self._watch is not None:
                    self._watch.resume()
                raise
        finally:
            self._interrupts.end()
        result.notes[:0] = notes
        result.timeout = limit
        if self._watch is not None:
            removed += self._watch.after()
        return result, removed

    def _restart(self, note: str) -> None:
        """End a shell whose protocol is broken; the next command starts a new one, its reply opening with `note`."""
        proc, self._proc = self._proc, None
        if proc is not None:
            self._stop(proc)
        self._cleanup()
        self._pending_note = note

    def interrupt(self) -> bool:
        """Ctrl-C for the running command, as a terminal sends it: SIGINT to the pty's foreground group.

        Bash gets SIGINT too, so the whole command line ends even when the program exits quietly on Ctrl-C
        (`!pytest; git commit -am wip` must not commit). Called from another thread or a signal handler; False
        when no command is running. One that comes before bash runs the command's line is held until it does, or
        stops the command before it runs (interrupts.py).
        """
        held = self._interrupts.ask()
        if held is None:
            return False
        return held or self._signal()

    def _signal(self) -> bool:
        """SIGINT to bash and the terminal's foreground group (or SIGKILL to a bash that ignores SIGINT)."""
        proc = self._proc
        if proc is None:
            return False
        try:
            group = os.tcgetpgrp(proc.child_fd)
        except OSError:
            return False
        self._interrupts.sent(group, program_of(group))
        if ignores_sigint(self._idle_pgrp):  # `trap '' INT`: only ending the shell ends the line
            signal_group(self._idle_pgrp, signal.SIGKILL)
        elif group != self._idle_pgrp:
            signal_group(self._idle_pgrp, signal.SIGINT)  # bash first: the rest of the line is dropped (see _escalate)
        signal_group(group, signal.SIGINT)
        return True

    def _catch_late(self, fd: int) -> None:
        """SIGINT to a program that came to the foreground after a Ctrl-C reached bash (interrupts.py)."""
        if not self._interrupts.watching():
            return
        with contextlib.suppress(OSError):
            group = os.tcgetpgrp(fd)
            if self._interrupts.late(group, program_of(group)):
                signal_group(group, signal.SIGINT)

    def _export_lines(self, wanted: dict[str, str]) -> str:
        """Statements (one line, so error line numbers stay the command's own) that sync exported variables."""
        lines = [f"\\builtin export {k}={ansi_quote(v)}; " for k, v in wanted.items() if self._variables.get(k) != v]
        gone = [k for k in self._variables if k not in wanted]
        if gone:
            lines.append("\\builtin unset " + " ".join(gone) + "; ")
        return "".join(lines)

    def _send(
        self, command: str, deadline: float, cap: int, *, escalate: bool, prelude: str = "", live: bool = False
    ) -> ShellResult:
        """Type the run line for `command` and read to its sentinel, stopping the command at the deadline."""
        assert self._proc is not None and self._private is not None
        if live and self._interrupts.cancels_line():
            self._health = HEALTHY
            return ShellResult(INTERRUPTED_STATUS, self.cwd, "")
        proc = self._proc
        self._count += 1
        script = self._private / "cmd"
        text = prelude + file_prelude(self._count) + command + "\n"
        script.write_text(text, encoding="utf-8", errors="surrogateescape")
        sentinel = f"__SSH_{self._secret}_{self._count}__".encode()
        quiet_terminal(proc.child_fd)
        os.write(proc.child_fd, run_line(script, self._secret, self._count).encode())
        script_prefix = str(script).encode() + b": "
        tail = sentinel_pattern(sentinel)
        stale = stale_pattern(self._secret)
        marker = f"__SSH_{self._secret}_".encode()
        go = started_mark(self._secret, self._count) if live else None  # a user command: Ctrl-C waits for it
        self._health = HEALTHY
        capture = OutputCapture(cap, self.spool_dir)
        cleaner = StreamCleaner()
        reader = PtyReader(proc.child_fd)
        buf, self._leftover = self._leftover, b""
        stream = LineStream.start(sentinel, script_prefix) if live else None  # a user command, shown as it runs
        if stream is not None:
            stream.feed(buf)
        timed_out = False
        stage = 0
        while True:
            if live:
                self._catch_late(proc.child_fd)
            now = time.monotonic()
            if now >= deadline:
                timed_out = True
                if not escalate:
                    break
                stage, deadline = self._escalate(stage)
                if stage > 2:
                    capture.write(cleaner.feed(buf) + cleaner.finish())
                    # bash before the hang-up: a program the hang-up ends first must not let it run on
                    signal_group(self._idle_pgrp, signal.SIGKILL)
                    self._ended(proc, killed=True)
                    return self._result(KILLED_STATUS, capture, True, ["[shell killed: the command did not stop]"])
                continue
            chunk = reader.read(min(deadline - now, POLL))
            if chunk is None:
                if proc.isalive():
                    continue
                chunk = reader.drain()
            if chunk == b"":
                capture.write(cleaner.feed(buf) + cleaner.finish())
                status = self._ended(proc)
                ended = f"[shell ended (exit {status}); the next command starts a new one]"
                return self._result(status, capture, timed_out, [ended])
            buf += chunk
            if go is not None and go in buf:
                go = None
                if self._interrupts.line_runs():  # a Ctrl-C held until bash runs the line
                    self._signal()
            if stream is not None:
                stream.feed(chunk)
            if script_prefix in buf:
                buf = buf.replace(script_prefix, b"")
            match = find_sentinel(buf, sentinel, tail)
            cut = match.start() if match else len(buf)
            if buf.find(marker, 0, cut) >= 0 and stale.search(buf, 0, cut):  # find first: a fast scan
                buf = stale.sub(b"", buf[:cut]) + buf[cut:]
                match = find_sentinel(buf, sentinel, tail)
            if match is not None:
                end = match.start() - 1 if buf[match.start() - 1 : match.start()] == b"\n" else match.start()
                while end > 0 and buf[end - 1 : end] == b"\r":
                    end -= 1
                capture.write(cleaner.feed(buf[:end]) + cleaner.finish())
                self._leftover = buf[match.end() :][-HOLD:]  # a background job's output: shown next time
                self.cwd = match.group(3).decode("utf-8", "replace")
                self._health = match.group(2).decode("ascii")
                return self._result(int(match.group(1)), capture, timed_out, [])
            if len(buf) > HOLD:
                capture.write(cleaner.feed(buf[:-HOLD]))
                buf = buf[-HOLD:]
        capture.write(cleaner.feed(buf) + cleaner.finish())
        return self._result(KILLED_STATUS, capture, True, [])

    def _result(self, status: int, capture: OutputCapture, timed_out: bool, tail: list[str]) -> ShellResult:
        output = capture.text()
        if tail:
            output = "\n".join([output, *tail]) if output else "\n".join(tail)
        return ShellResult(status, self.cwd, output, timed_out)

    def _escalate(self, stage: int) -> tuple[int, float]:
        """Stop a command past its deadline: SIGINT to bash, which drops the rest of the command line (else
        `sleep 5; date > f` writes `f` once the sleep is killed), and SIGTERM to the running program's group;
        then SIGKILL to that group; then the shell itself."""
        assert self._proc is not None
        try:
            group = os.tcgetpgrp(self._proc.child_fd)
        except OSError:
            group = self._idle_pgrp
        now = time.monotonic()
        if stage == 0:
            if ignores_sigint(self._idle_pgrp):  # `trap '' INT`: only ending the shell ends the line
                return 3, now
            signal_group(self._idle_pgrp, signal.SIGINT)  # bash first: it drops the rest of the line too
            if group != self._idle_pgrp:
                signal_group(group, signal.SIGTERM)
            return 1, now + self.settings.kill_grace
        if stage == 1 and group != self._idle_pgrp:
            signal_group(group, signal.SIGKILL)
            return 2, now + AFTER_KILL
        return 3, now
