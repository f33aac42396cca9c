"""Real bash in a real pty, once per provider: every behaviour test runs locally and under bubblewrap."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from stringsh.workspace.shell import ShellSession, ShellSettings

PROVIDERS = ("none", "bubblewrap")
#: Short limits keep the suite fast: a timed-out command gets SIGKILL 0.3 s after SIGTERM.
FAST = {"timeout": 20.0, "kill_grace": 0.3}


@pytest.fixture(scope="session", autouse=True)
def _bwrap_installed() -> None:
    """The sandbox half of the suite needs bwrap; say how to get it rather than skipping."""
    assert shutil.which("bwrap"), "bubblewrap is not installed: apt-get install -y bubblewrap"


@pytest.fixture(params=PROVIDERS)
def sandbox(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def settings(sandbox: str) -> ShellSettings:
    return ShellSettings(sandbox=sandbox, **FAST)


@pytest.fixture
def shell(ws: Path, settings: ShellSettings) -> Iterator[ShellSession]:
    session = ShellSession(ws, settings)
    yield session
    session.close()
