"""Fixtures shared by every test folder: a fresh workspace and the real `stringsh` program."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from stringsh.dispatcher import Dispatcher

STRINGSH = [sys.executable, "-m", "stringsh"]


@pytest.fixture(autouse=True)
def isolated_user_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads or writes the real user's config, history or state (child processes inherit this)."""
    home = tmp_path_factory.mktemp("user")
    monkeypatch.setenv("STRINGSH_CONFIG_DIR", str(home / "config"))
    monkeypatch.setenv("STRINGSH_HISTORY", str(home / "history"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "xdg-config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "xdg-state"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "xdg-cache"))


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """An empty workspace folder."""
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def dispatcher(ws: Path):
    d = Dispatcher(ws)
    yield d
    d.close()


def run_stringsh(args: list[str], cwd: Path, stdin: bytes | str = b"", timeout: float = 60, env: dict | None = None):
    """Run the real program as a user would, with a clean isolated config and state."""
    data = stdin.encode() if isinstance(stdin, str) else stdin
    full_env = {**os.environ, "TERM": "dumb", **(env or {})}
    return subprocess.run([*STRINGSH, *args], cwd=cwd, input=data, capture_output=True, timeout=timeout, env=full_env)
