"""Cancel on the newest protocol (2026-07-28), the SDK's own client against real `python -m stringsh mcp`
processes: over HTTP the client cancels by closing the request's response stream, on stdio with
`notifications/cancelled`; either way the call's work ends as Ctrl-C would end it (cancelling.py).

No timing is asserted. The cancelled command is `sleep 30.NNN; touch MARKER` (a duration of its own, found in the
process listing once it runs). The test waits for the sleep to leave the process listing and for the cancelled
call's audit record (written when its work is over): had the command run on to its end instead, MARKER would be
there by then. Over HTTP each call of the newest protocol is a client of its own (no session: roots.py), so no call
waits behind another; on stdio the next call shares the connection's topic."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import pytest

from tests.conftest import wait_until
from tests.dialects.mcp.client import http_server
from tests.dialects.mcp.modern import Modern, audit, modern_http, modern_stdio, running

pytestmark = pytest.mark.timeout(120)


@contextmanager
def over_http(root: Path, env: dict[str, str]) -> Iterator[Modern]:
    with http_server(root, env=env) as server, modern_http(server.url, server.token) as client:
        yield client


TRANSPORTS: dict[str, Callable[[Path, dict[str, str]], AbstractContextManager[Modern]]] = {
    "http": over_http, "stdio": modern_stdio}


@pytest.mark.parametrize("transport", sorted(TRANSPORTS))
def test_a_cancelled_command_is_interrupted_and_the_next_call_answers(tmp_path: Path, env: dict[str, str],
                                                                       transport: str) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    seconds = f"30.{random.randrange(10**6):06d}"
    with TRANSPORTS[transport](root, env) as client:
        progress: list[str | None] = []

        async def heard(done: float, total: float | None, message: str | None) -> None:
            progress.append(message)

        call = client.start("bash", {"command": f"sleep {seconds}; touch MARKER"}, heard)
        wait_until(lambda: running("sleep", seconds))
        call.cancel()  # HTTP: the client closes the request's stream; stdio: notifications/cancelled
        wait_until(lambda: not running("sleep", seconds))
        wait_until(lambda: any(record["op"] == "mcp.bash" for record in audit(root, env, 5)))  # its work is over
        assert client.text("bash", {"command": "echo next"}) == f"re: !echo next\nexit: 0 | cwd: {root}\n---\nnext"
        assert not (root / "MARKER").exists()
        assert client.text("bash", {"command": "ls"}).endswith("---\n(no output)")
    records = [record for record in audit(root, env, 10) if record["op"] == "mcp.bash"]
    assert [record["outcome"] for record in records] == ["CANCELLED", "ok", "ok"]
    assert all(re.fullmatch(r"bash: running for \d+ s", message or "") for message in progress), progress
