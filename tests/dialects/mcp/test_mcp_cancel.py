"""`notifications/cancelled` ends a call's work, and long calls send progress (cancelling.py, progress.py): the SDK's
client over real stdio and streamable HTTP to real `python -m stringsh mcp` processes.

No timing is asserted. A cancelled `sleep 600; touch MARKER` must be interrupted: the connection's next call in
the same topic is answered only once it is over (without the interrupt, only pytest-timeout would end the wait),
and MARKER is then absent because Ctrl-C ended the whole line. A call cancelled before it started never changes a
file; one cancelled while its operation ran is put back whole."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import pytest
from mcp_types import CallToolResult

from stringsh.dialects.mcp.calls import Call, make_calls
from stringsh.dialects.mcp.cancelling import Job
from stringsh.dialects.mcp.tools_commands import reply_result
from stringsh.dispatcher import Dispatcher
from stringsh.workspace.state import AUDIT_FILE
from tests.conftest import wait_until
from tests.dialects.mcp.client import Client, http_server, http_session, stdio_session

pytestmark = pytest.mark.timeout(120)

#: Longer than the timeout above: a call that waits for it to end fails the test.
LONG = "sleep 600"


@contextmanager
def over_stdio(root: Path, env: dict[str, str]) -> Iterator[Client]:
    with stdio_session(root, name="cancel-client", env=env) as client:
        yield client


@contextmanager
def over_http(root: Path, env: dict[str, str]) -> Iterator[Client]:
    with http_server(root, env=env) as server, http_session(server.url, token=server.token) as client:
        yield client


TRANSPORTS: dict[str, Callable[[Path, dict[str, str]], AbstractContextManager[Client]]] = {
    "stdio": over_stdio, "http": over_http}


class Progress:
    """A call started in the background with a progress callback: its notifications as they come."""

    def __init__(self, client: Client, name: str, arguments: dict[str, Any]) -> None:
        self.seen: list[tuple[float, float | None, str | None]] = []
        self.came = threading.Event()

        async def heard(progress: float, total: float | None, message: str | None) -> None:
            self.seen.append((progress, total, message))
            self.came.set()

        self.future: Future[Any] = client.portal.start_task_soon(
            lambda: client.session.call_tool(name, arguments, progress_callback=heard))

    def running(self) -> None:
        """Wait for the first progress notification: the call's work is under way."""
        wait_until(self.came.is_set)


@pytest.fixture(params=sorted(TRANSPORTS))
def client(request: pytest.FixtureRequest, tmp_path: Path, env: dict[str, str]) -> Iterator[Client]:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("one\ntwo\n")
    (root / "b.txt").write_text("alpha\nbeta\n")
    with TRANSPORTS[request.param](root, env) as session:
        session.root = root  # type: ignore[attr-defined]
        yield session


@pytest.mark.parametrize(("tool", "argument"), [("bash", "command"), ("string", "request")])
def test_a_cancelled_shell_command_is_interrupted_and_frees_the_session(client: Client, tool: str, argument: str
                                                                        ) -> None:
    root: Path = client.root  # type: ignore[attr-defined]
    line = f"{LONG}; touch MARKER"
    call = Progress(client, tool, {argument: line if tool == "bash" else f"!{line}"})
    call.running()
    progress, total, message = call.seen[0]
    assert (progress, total) == (1.0, None)
    assert re.fullmatch(rf"{tool}: running for \d+ s", message or ""), message
    call.future.cancel()
    assert client.text("bash", {"command": "echo next"}) == f"re: !echo next\nexit: 0 | cwd: {root}\n---\nnext"
    assert not (root / "MARKER").exists()
    assert client.text("bash", {"command": "echo again"}).endswith("---\nagain")


def test_a_server_started_ignoring_ctrl_c_still_interrupts_a_cancelled_command(tmp_path: Path,
                                                                                env: dict[str, str]) -> None:
    # as a script's `stringsh mcp &` starts it: bash ignores SIGINT in a background job, and exec keeps the ignore;
    # the topic shell must not inherit it, or its `sleep` would not stop on the cancel's Ctrl-C
    launcher = ["bash", "-c", "trap '' INT; exec \"$@\"", "bash"]
    with stdio_session(tmp_path, name="cancel-client", env=env, launcher=launcher) as client:
        call = Progress(client, "bash", {"command": f"{LONG}; touch MARKER"})
        call.running()
        call.future.cancel()
        assert client.text("bash", {"command": "echo next"}) == f"re: !echo next\nexit: 0 | cwd: {tmp_path}\n---\nnext"
    assert not (tmp_path / "MARKER").exists()


def test_a_call_cancelled_before_it_started_changes_nothing(client: Client) -> None:
    root: Path = client.root  # type: ignore[attr-defined]
    running = Progress(client, "bash", {"command": LONG})
    running.running()
    diff = ("--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-one\n+ONE\n two\n"
            "--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n-alpha\n+ALPHA\n beta\n")
    waiting = Progress(client, "patch", {"diff": diff})  # behind the sleep: the topic runs one command at a time
    waiting.running()
    waiting.future.cancel()
    running.future.cancel()
    assert client.text("bash", {"command": "cat a.txt b.txt"}).endswith("---\none\ntwo\nalpha\nbeta")
    assert (root / "a.txt").read_text() == "one\ntwo\n"
    assert (root / "b.txt").read_text() == "alpha\nbeta\n"


def test_progress_is_sent_only_when_asked_for(client: Client) -> None:
    call = Progress(client, "bash", {"command": "echo quick"})
    assert call.future.result().content[0].text.endswith("---\nquick")
    assert client.text("bash", {"command": "echo plain"}).endswith("---\nplain")  # no token: no progress


# -- an operation under way when the cancel comes is put back whole (the engine's change set, in-process) -------

def test_a_multi_file_patch_cancelled_while_it_ran_is_put_back_whole(ws: Path) -> None:
    (ws / "a.txt").write_text("one\ntwo\n")
    (ws / "b.txt").write_text("alpha\nbeta\n")
    dispatcher = Dispatcher(ws)
    try:
        workspace = dispatcher.workspace
        calls = make_calls(workspace, None, dispatcher)
        mine = calls.sessions.adopt("test", "cancel-test")
        job = Job(dispatcher, mine.topic)
        diff = ("--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n-one\n+ONE\n two\n"
                "--- a/b.txt\n+++ b/b.txt\n@@ -1,2 +1,2 @@\n-alpha\n+ALPHA\n beta\n")

        def work(call: Call) -> CallToolResult:
            result = reply_result(dispatcher, f"/patch <<EOF\n{diff}EOF", call.topic)
            assert ((ws / "a.txt").read_text(), (ws / "b.txt").read_text()) == ("ONE\ntwo\n", "ALPHA\nbeta\n")
            job.stop.set()  # the client's cancel arrives while the call is still running
            return result

        calls.answer(mine, "cancel-test", None, "patch", [], work, job)
        assert ((ws / "a.txt").read_text(), (ws / "b.txt").read_text()) == ("one\ntwo\n", "alpha\nbeta\n")
        last = json.loads((workspace.state.path / AUDIT_FILE).read_text().splitlines()[-1])
        assert (last["op"], last["outcome"]) == ("mcp.patch", "CANCELLED")
    finally:
        dispatcher.close()


def test_a_call_cancelled_before_its_work_starts_is_refused_unrun(ws: Path) -> None:
    dispatcher = Dispatcher(ws)
    try:
        calls = make_calls(dispatcher.workspace, None, dispatcher)
        mine = calls.sessions.adopt("test", "cancel-test")
        job = Job(dispatcher, mine.topic)
        job.cancel()
        result = calls.answer(mine, "cancel-test", None, "write_file", ["x.txt"],
                              lambda call: call.ws.write_text("x.txt", "made", topic=call.topic), job)
        assert result.content[0].text == ("ERROR(CANCELLED): The client cancelled this call\n"  # type: ignore[union-attr]
                                          "Nothing was changed; call again to run it.")
        assert not (ws / "x.txt").exists()
    finally:
        dispatcher.close()
