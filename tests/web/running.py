"""A real `python -m stringsh web` on loopback for the tests, and real agents beside it (`-c` calls)."""

from __future__ import annotations

import re
import signal
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

from tests.dialects.mcp.client import STRINGSH, server_env, user_env, wait_until

__all__ = ["WebServer", "agent", "user_env", "web_server"]

#: The line `stringsh web` prints once it listens.
OPEN = re.compile(r"^  open (http://127\.0\.0\.1:\d+/)#token=(\S+)$")


class WebServer:
    """A running `stringsh web`: its base URL (ending in `/`), its token, and its stderr lines so far."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        self.lines: list[str] = []
        self.url = ""
        self.token = ""
        self.reader: threading.Thread | None = None

    @property
    def origin(self) -> str:
        return self.url.rstrip("/")

    def auth(self, **more: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}", **more}

    def get(self, where: str, **params: str) -> httpx.Response:
        return httpx.get(self.url + where.lstrip("/"), headers=self.auth(), params=params, timeout=60)

    def post(self, path: str, body: object, *, origin: str | None = None) -> httpx.Response:
        headers = self.auth(Origin=self.origin if origin is None else origin)
        return httpx.post(self.url + path.lstrip("/"), headers=headers, json=body, timeout=60)


@contextmanager
def web_server(root: Path, env: dict[str, str], *extra: str) -> Iterator[WebServer]:
    """`python -m stringsh --root ROOT web --port 0` as a subprocess, once it printed its address."""
    process = subprocess.Popen([*STRINGSH, "--root", str(root), "web", "--port", "0", *extra], env=server_env(env),
                               cwd=str(root), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    server = WebServer(process)
    found = threading.Event()

    def drain() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            server.lines.append(line.rstrip("\n"))
            match = OPEN.match(line.rstrip("\n"))
            if match:
                server.url, server.token = match.groups()
                found.set()

    reader = server.reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        wait_until(found.is_set, f"stringsh web never printed its address: {server.lines}", process)
        yield server
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        finally:
            if process.poll() is None:
                process.kill()
        reader.join(timeout=10)


def agent(root: Path, env: dict[str, str], request: str, *flags: str) -> subprocess.CompletedProcess[str]:
    """A real agent's one request: `python -m stringsh --root ROOT [FLAGS] -c REQUEST`."""
    return subprocess.run([*STRINGSH, "--root", str(root), *flags, "-c", request], env=server_env(env),
                          cwd=str(root), capture_output=True, text=True, timeout=120, check=False)

