"""The plain interactive loop: a fixed prompt, no escape sequences, the same reply texts as `stringsh run`.

Used with `--plain`, `TERM=dumb` or when stdin is not a terminal (agents in a pty or on pipes). With `--no-echo`
(or `STRINGSH_NO_ECHO=1`), the agent mode, it prints no prompts and does not echo input, so a harness that writes
a whole large request before reading any reply cannot deadlock on a full pty buffer.

Where nobody sees prompts (stdin a pipe, or the agent mode) each reply ends with the line `</𝒞>` (body lines that
could be taken for it are escaped as in the daemon's envelope: `framing.escape_frame_lines`), so a reader knows
a reply is complete; and the exit status is 1 when any request failed, as `stringsh run --keep-going` gives.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, BinaryIO

from stringsh.dispatcher import Dispatcher
from stringsh.output import ReplyWriter
from stringsh.protocol.framing import END_OF_REPLY, escape_frame_lines
from stringsh.protocol.response import Reply
from stringsh.protocol.stdinput import InputLines, standard_input
from stringsh.protocol.stream import StreamItem, read_requests
from stringsh.session import Session

if TYPE_CHECKING:
    from stringsh.protocol.operator_model import Confirmer, ConfirmRequest

PROMPT = "› "
BASH_PROMPT = "bash› "
CONTINUATION = "… "
BANNER = "stringsh — /help lists commands, !cmd runs a shell command, Ctrl-D leaves"


class _SignalWake:
    """Wakes a wait for input when a signal arrives, whichever thread the kernel gave it to.

    Ctrl-C is a SIGINT for the whole process, and the kernel may deliver it to any thread: the engine's watcher,
    audit writer or fsync workers as well as the main one. Handed to another thread, it interrupts nothing in the
    main thread, which stayed blocked reading the terminal until the next key came, with no fresh prompt. So the
    wait is a poll of the terminal and of a pipe Python's signal handling writes to (`signal.set_wakeup_fd`)."""

    def __init__(self, fd: int) -> None:
        import select

        self._fd = fd
        self._read, self._write = os.pipe()
        os.set_blocking(self._read, False)
        os.set_blocking(self._write, False)
        self._poll = select.poll()
        self._poll.register(fd, select.POLLIN)
        try:
            self._previous = signal.set_wakeup_fd(self._write, warn_on_full_buffer=False)  # -1: none before
            self._poll.register(self._read, select.POLLIN)
        except ValueError:  # not the main thread: signals reach only the main thread's own waits
            self._previous = None

    def wait_readable(self) -> bool:
        """Block until the terminal has input (True) or a signal came (False)."""
        ready = {ready_fd for ready_fd, _ in self._poll.poll()}
        if self._read in ready:
            with suppress(BlockingIOError):
                os.read(self._read, 512)
            return self._fd in ready
        return True

    def close(self) -> None:
        if self._previous is not None:
            with suppress(ValueError):
                signal.set_wakeup_fd(self._previous)
            self._previous = None
        for end in (self._read, self._write):
            with suppress(OSError):
                os.close(end)
        self._read = self._write = -1


class TtyLines:
    """Line assembly for a terminal in non-canonical mode, so no line length limit applies.

    In canonical mode the kernel's line discipline (N_TTY) keeps at most 4095 characters of a line and drops or
    splits the rest: a long heredoc line over `--plain` on a pty was silently cut. Here the terminal is switched to
    non-canonical mode (ICANON cleared; ISIG kept so Ctrl-C still interrupts; VMIN=1, VTIME=0; the kernel's ECHO
    cleared) and this class assembles lines itself: it echoes what it reads (unless `echo` is off, the agent
    mode), handles the erase, kill and end-of-file characters as canonical mode would, and `restore` puts the
    saved settings back (`run_plain` calls it in a `finally`, and SIGTERM/SIGHUP end through that `finally`).
    """

    def __init__(self, fd: int, out: BinaryIO, *, echo: bool) -> None:
        import termios

        self._fd = fd
        self._out = out
        self._echo = echo
        self._saved = termios.tcgetattr(fd)
        cc = self._saved[6]
        self._erase = _cc_byte(cc[termios.VERASE])
        self._kill = _cc_byte(cc[termios.VKILL])
        self._eof = _cc_byte(cc[termios.VEOF])
        self._line = bytearray()
        self._ready: list[bytes] = []
        self._ended = False
        attrs = termios.tcgetattr(fd)
        attrs[3] &= ~(termios.ICANON | termios.ECHO | termios.ECHONL)
        # NOFLSH: on Ctrl-C the kernel would flush output too, racing the fresh prompt; `discard` flushes input
        attrs[3] |= termios.NOFLSH
        attrs[6][termios.VMIN] = 1
        attrs[6][termios.VTIME] = 0
        termios.tcsetattr(fd, termios.TCSADRAIN, attrs)
        self._wake = _SignalWake(fd)

    def restore(self) -> None:
        import termios

        self._wake.close()
        with suppress(termios.error):  # the terminal has gone away (hang-up): nothing left to restore
            termios.tcsetattr(self._fd, termios.TCSADRAIN, self._saved)

    def discard(self) -> None:
        """Drop the half-typed line and unread input, as canonical mode does on Ctrl-C."""
        import termios

        with suppress(termios.error):
            termios.tcflush(self._fd, termios.TCIFLUSH)
        self._line.clear()
        self._ready.clear()

    def readline(self, limit: int) -> bytes:
        """One line (with its newline) of at most `limit` bytes; b"" at end of input."""
        while not self._ready:
            if len(self._line) >= limit:
                head, self._line = bytes(self._line[:limit]), self._line[limit:]
                return head
            if self._ended:
                return b""
            if not self._wake.wait_readable():
                continue  # a signal came: its handler has run (Ctrl-C raised KeyboardInterrupt) or it was another
            data = os.read(self._fd, 65536)
            if not data:
                self._ended = True
                if self._line:
                    self._ready.append(bytes(self._line))
                    self._line.clear()
                continue
            self._feed(data)
        line = self._ready[0]
        if len(line) > limit:
            self._ready[0] = line[limit:]
            return line[:limit]
        return self._ready.pop(0)

    def _feed(self, data: bytes) -> None:
        echo = bytearray()
        start = 0
        for index, byte in enumerate(data):
            if byte == 0x0A:
                self._line += data[start : index + 1]
                echo += data[start : index + 1]
                self._ready.append(bytes(self._line))
                self._line.clear()
            elif byte == self._erase:
                self._line += data[start:index]
                echo += data[start:index]
                if self._line:
                    while self._line and 0x80 <= self._line[-1] < 0xC0:
                        self._line.pop()
                    if self._line:
                        self._line.pop()
                    echo += b"\b \b"
            elif byte == self._kill:
                self._line += data[start:index]
                echo += data[start:index]
                echo += b"\b \b" * len(self._line.decode("utf-8", "replace"))
                self._line.clear()
            elif byte == self._eof:
                self._line += data[start:index]
                echo += data[start:index]
                if self._line:
                    self._ready.append(bytes(self._line))  # Ctrl-D inside a line sends it without a newline
                    self._line.clear()
                else:
                    self._ready.append(b"")
            else:
                continue
            start = index + 1
        self._line += data[start:]
        echo += data[start:]
        if self._echo and echo:
            self._out.write(bytes(echo))
            self._out.flush()


def _cc_byte(value: bytes | int) -> int | None:
    """A control character of the terminal settings as a byte value; None when it is disabled."""
    code = value[0] if isinstance(value, bytes) else value
    return code or None


@contextmanager
def _ends_through_finally() -> Iterator[None]:
    """SIGTERM and SIGHUP leave through `finally` blocks (so the terminal settings are restored) when they would
    otherwise kill the process on the spot."""

    def leave(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    previous = {}
    for signum in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(signum) is signal.SIG_DFL:
            previous[signum] = signal.signal(signum, leave)
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def answer_interruptibly(dispatcher: Dispatcher, item: StreamItem, session: Session) -> Reply:
    """Run one request; Ctrl-C meanwhile interrupts the topic's running shell command, as in a terminal.

    Outside a shell command Ctrl-C abandons the request (KeyboardInterrupt); the engine's journal keeps files whole.
    """

    def on_interrupt(signum: int, frame: object) -> None:
        bash = session.bash
        if bash is not None and bash.interrupt():
            return
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, on_interrupt)
    try:
        return dispatcher.answer(item)
    finally:
        signal.signal(signal.SIGINT, previous)


def run_plain(dispatcher: Dispatcher, *, echo: bool = True) -> int:
    """Serve requests from stdin until end of input; prompts only when stdin is a terminal and `echo` is on.

    On a terminal, stdin is read in non-canonical mode through `TtyLines` (no line length limit); `echo=False`
    (the agent mode) also stops the echo of input and every prompt. The banner is still written, after the
    terminal was switched: a harness waits for it before writing, since the pty's canonical mode (line limit,
    echo) applies to anything written before the switch.
    """
    stdin = sys.stdin.fileno()
    interactive = os.isatty(stdin)
    out = sys.stdout.buffer
    if not interactive:
        lines = standard_input()
        return lines.status(_serve(dispatcher, lines, out, prompts=False, banner=False, marked=True))
    if not echo:  # agent mode: the terminal is the agent's; nobody there can confirm an OPERATOR_CMD change
        dispatcher.session().operator_confirm = _unattended(dispatcher)
    tty = TtyLines(stdin, out, echo=echo)
    lines = InputLines(tty.readline)  # EIO once the terminal's other side is gone (and SIGHUP ignored)
    try:
        with _ends_through_finally():
            return lines.status(_serve(
                dispatcher, lines, out, prompts=echo, banner=True, on_interrupt=tty.discard, marked=not echo
            ))
    finally:
        tty.restore()


def _unattended(dispatcher: Dispatcher) -> Confirmer:
    """The policy's `[operator] confirm` with no one to ask: "prompt" refuses (asking on the agent's own terminal
    would read its next request as the answer, or wait for ever)."""

    def confirm(request: ConfirmRequest) -> str | None:
        from stringsh.dialects.operator.confirm import policy_confirmer

        return policy_confirmer(dispatcher.workspace.policy, None)(request)

    return confirm


def _serve(
    dispatcher: Dispatcher,
    readline: Callable[[int], bytes],
    out: BinaryIO,
    *,
    prompts: bool,
    banner: bool,
    on_interrupt: Callable[[], None] | None = None,
    marked: bool = False,
) -> int:
    """The loop; `marked`: end every reply with `END_OF_REPLY` and exit 1 when a request failed (see above)."""
    writer = ReplyWriter(out, wrap_help=not marked)  # a person's loop; marked replies are for programs
    session = dispatcher.session()
    failed = False

    def send(text: str) -> None:
        writer.write(f"{escape_frame_lines(text)}\n{END_OF_REPLY}" if marked else text)

    def prompt(text: str) -> None:
        if prompts:
            out.write(text.encode("utf-8"))
            out.flush()

    if banner:
        writer.write(BANNER)
    while True:
        started = False
        try:
            prompt(BASH_PROMPT if session.bash_mode else PROMPT)  # inside: a Ctrl-C right after it is caught too
            items = read_requests(
                readline,
                on_continuation=lambda: prompt(CONTINUATION),
                on_skipped=lambda: prompt(BASH_PROMPT if session.bash_mode else PROMPT),
                is_bash_mode=lambda: session.bash_mode,
            )
            item = next(items, None)
            if item is None:
                break
            started = True
            with dispatcher.records_after_reply():  # the reply first, then its audit record
                reply = answer_interruptibly(dispatcher, item, session)
                failed = failed or not reply.ok
                send(reply.text)
        except KeyboardInterrupt:
            if on_interrupt:
                on_interrupt()
            if not marked:
                writer.write("")  # the fresh prompt on a line of its own
            elif started:  # an abandoned request: an empty reply, so the reader's count of replies holds
                failed = True
                send("")
            continue
    if prompts:
        writer.write("")
    return 1 if marked and failed else 0
