"""Real bash in a real pty, once per provider: every behaviour test runs locally and under bubblewrap.

The `[bubblewrap]` cases need bwrap: tests/conftest.py skips them with a notice, or fails them where CI=true."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from stringsh.workspace.shell import ShellSession, ShellSettings

PROVIDERS = ("none", "bubblewrap")
#: Short limits keep the suite fast: a timed-out command gets SIGKILL 0.3 s after SIGTERM.
FAST = {"timeout": 20.0, "kill_grace": 0.3}


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
