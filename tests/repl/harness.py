"""Drive the real `stringsh` program in a pty, as a terminal would, and read what a person would see.

pyte keeps the screen; its `write_process_input` hook answers the cursor-position query (ESC[6n) that
prompt_toolkit sends, without which the bottom toolbar never appears and input handling stalls.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pexpect
import pyte

COLUMNS, LINES = 100, 30
#: Upper bound for any single wait; tests wait on screen content, never on time.
WAIT = 20.0


class Terminal:
    """A pty running stringsh, a pyte screen fed from it, and the raw transcript of every byte it wrote."""

    def __init__(
        self,
        args: list[str],
        cwd: Path,
        env: dict[str, str],
        *,
        answer_cpr: bool = True,
        size: tuple[int, int] = (COLUMNS, LINES),
    ) -> None:
        columns, lines = size
        full_env = {
            "PATH": os.environ["PATH"],
            "HOME": env.get("HOME", str(cwd)),
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "TERM": "xterm-256color",
            "COLUMNS": str(columns),
            "LINES": str(lines),
            "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
            **env,
        }
        self.screen = pyte.Screen(columns, lines)
        self.stream = pyte.ByteStream(self.screen)
        self.transcript = bytearray()
        self.child = pexpect.spawn(
            sys.executable, ["-m", "stringsh", *args], cwd=str(cwd), env=full_env, dimensions=(lines, columns)
        )
        self.child.delaybeforesend = None
        if answer_cpr:
            self.screen.write_process_input = self._answer

    def _answer(self, data: str | bytes) -> None:
        """pyte's reply to a terminal query (the cursor position report) goes back to the program."""
        self.child.send(data.encode() if isinstance(data, str) else data)

    def pump(self, timeout: float = 0.05) -> bool:
        """Read what is there into the screen; False once the program has exited and all output is read."""
        try:
            data = self.child.read_nonblocking(65536, timeout=timeout)
        except pexpect.TIMEOUT:
            return True
        except pexpect.EOF:
            return False
        self.transcript.extend(data)
        self.stream.feed(data)
        return True

    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display)

    def wait_for(self, predicate: Callable[[str], bool] | str, timeout: float = WAIT) -> str:
        """Pump until the screen satisfies the predicate (or contains the string); fail with the screen shown."""
        check = (lambda screen: predicate in screen) if isinstance(predicate, str) else predicate
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            alive = self.pump()
            screen = self.text()
            if check(screen):
                return screen
            if not alive:
                break
        raise AssertionError(f"screen never matched {predicate!r}; screen was:\n{self.text()}")

    def wait_transcript(self, needle: bytes, timeout: float = WAIT) -> None:
        deadline = time.monotonic() + timeout
        while needle not in self.transcript and time.monotonic() < deadline:
            if not self.pump():
                break
        tail = bytes(self.transcript[-2000:])
        assert needle in self.transcript, f"{needle!r} never printed; transcript tail:\n{tail!r}"

    def wait_for_transcript_count(self, needle: bytes, count: int, timeout: float = WAIT) -> None:
        deadline = time.monotonic() + timeout
        while self.transcript.count(needle) < count and time.monotonic() < deadline:
            if not self.pump():
                break
        tail = bytes(self.transcript[-2000:])
        assert self.transcript.count(needle) >= count, f"{needle!r} printed fewer than {count} times:\n{tail!r}"

    def send(self, data: str) -> None:
        self.child.send(data)

    def settle(self) -> None:
        """Read until the program has been quiet briefly (used only before capturing a screen for people)."""
        quiet_since = time.monotonic()
        while time.monotonic() - quiet_since < 0.3:
            before = len(self.transcript)
            if not self.pump(0.05):
                return
            if len(self.transcript) != before:
                quiet_since = time.monotonic()

    def wait_exit(self, timeout: float = WAIT) -> int:
        deadline = time.monotonic() + timeout
        while self.pump() and time.monotonic() < deadline:
            pass
        self.child.close()
        return self.child.exitstatus if self.child.exitstatus is not None else -1

    def close(self) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)
        self.child.close()
