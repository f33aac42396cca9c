"""The real program's plain loop over pipes, kept running between requests, for the shell's front-end tests."""

from __future__ import annotations

import os
import select
import subprocess
import time
from pathlib import Path

from tests.conftest import STRINGSH

#: The line that ends each reply of the plain loop on pipes (docs/front-ends.md, end of reply).
END = "</𝒞>\n"


def policy_args(tmp_path: Path, sandbox: str) -> list[str]:
    if sandbox == "none":
        return []
    policy = tmp_path / "policy.toml"
    policy.write_text("[shell]\nsandbox = true\n")
    return ["--policy", str(policy)]


class PipedPlain:
    """`stringsh --plain --no-echo` with stdin and stdout as pipes, kept running between requests."""

    def __init__(self, ws: Path, args: list[str]) -> None:
        self.proc = subprocess.Popen(
            [*STRINGSH, "--plain", "--no-echo", *args], cwd=ws, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, env={**os.environ, "TERM": "dumb"},
        )
        self.out = b""

    def send(self, *lines: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write("".join(line + "\n" for line in lines).encode())
        self.proc.stdin.flush()

    def read_until(self, needle: str, timeout: float = 60) -> str:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        until = time.monotonic() + timeout
        while needle.encode() not in self.out:
            left = until - time.monotonic()
            assert left > 0, f"no {needle!r} in {self.out!r}"
            if select.select([fd], [], [], left)[0]:
                chunk = os.read(fd, 65536)
                assert chunk, f"stringsh ended early: {self.out!r}"
                self.out += chunk
        return self.out.decode()

    def close(self) -> int:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        return self.proc.wait(timeout=60)

    def ask(self, line: str) -> str:
        """Send one request and return its reply, without the end mark (content here has no frame-like lines)."""
        start = len(self.out)
        self.send(line)
        while END.encode() not in self.out[start:]:
            self._read_more()
        reply, _, rest = self.out[start:].partition(END.encode())
        assert not rest, f"more than one reply: {rest!r}"
        return reply.decode()

    def _read_more(self, timeout: float = 60) -> None:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        assert select.select([fd], [], [], timeout)[0], f"no reply within {timeout} s: {self.out!r}"
        chunk = os.read(fd, 65536)
        assert chunk, f"stringsh ended early: {self.out!r}"
        self.out += chunk
