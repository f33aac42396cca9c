"""The real program started the way another terminal would start it: in a session of its own."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.conftest import STRINGSH


def run_in_new_session(args: list[str], cwd: Path, stdin: str = "", env: dict[str, str] | None = None,
                       timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    """`run_stringsh`, but as the leader of a new terminal session (`setsid`): another terminal's client."""
    full_env = {**os.environ, "TERM": "dumb", **(env or {})}
    return subprocess.run([*STRINGSH, *args], cwd=cwd, input=stdin.encode(), capture_output=True, timeout=timeout,
                          env=full_env, start_new_session=True)
