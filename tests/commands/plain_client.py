"""A real `stringsh --plain` process on pipes, driven one request at a time, for tests where two clients share a
workspace. A request is answered when its exact reply has appeared (the reply texts are the contract), so two
processes can be interleaved in a known order without timing assumptions; the deadline only bounds a failure."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

from tests.conftest import STRINGSH

DEADLINE = 60.0


class PlainClient:
    """One `stringsh --plain` process whose replies go to a file (a full pipe can never block it)."""

    def __init__(self, ws: Path, out: Path) -> None:
        self.out = out
        self._sink = out.open("wb")
        self.proc = subprocess.Popen([*STRINGSH, "--plain"], cwd=ws, stdin=subprocess.PIPE, stdout=self._sink,
                                     stderr=subprocess.DEVNULL, env={**os.environ, "TERM": "dumb"})

    def output(self) -> str:
        return self.out.read_bytes().decode()

    def ask(self, request: str, reply: str) -> None:
        """Send `request` (a line, or a line and its heredoc body) and wait for exactly `reply` to it."""
        assert self.proc.stdin is not None
        before = len(self.output())
        self.proc.stdin.write(request.encode() + b"\n")
        self.proc.stdin.flush()
        expected = f"re: {request.splitlines()[0]}\n{reply}\n"
        deadline = time.monotonic() + DEADLINE
        while expected not in self.output()[before:]:
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise AssertionError(f"expected reply {expected!r}, got {self.output()[before:]!r}")
            time.sleep(0.02)

    def close(self) -> int:
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            self.proc.stdin.close()
        code = self.proc.wait(timeout=DEADLINE)
        self._sink.close()
        return code
