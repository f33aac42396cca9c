"""Agents' topics start their shell when the topic is made (Dispatcher.warm_shells: the daemon, MCP), so the first
command does not wait for the sandbox; the first command runs in that shell, a topic that ends stops it, and a
front end for a person (the REPL, `-c`) starts none ahead."""

from __future__ import annotations

import contextlib
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

from stringsh.dialects.mcp.sessions import Sessions
from stringsh.dispatcher import Dispatcher
from stringsh.session import Session
from tests.conftest import STRINGSH, descendants
from tests.dialects.mcp.client import wait_until


def warm_threads_done() -> None:
    for thread in threading.enumerate():
        if thread.name == "stringsh-warm-shell":
            thread.join(60)
            assert not thread.is_alive(), "a shell still warming up after 60 s"


@contextlib.contextmanager
def opened(ws: Path, *, warm: bool = True) -> Iterator[Dispatcher]:
    """A dispatcher on `ws` as the daemon's (`warm`) or a person's front end has it; closed after."""
    dispatcher = Dispatcher(ws)
    dispatcher.warm_shells = warm
    try:
        dispatcher.check()
        yield dispatcher
    finally:
        dispatcher.close()


def reply_text(dispatcher: Dispatcher, text: str, topic: str) -> str:
    return dispatcher.execute(text, topic).text


def test_a_new_topic_starts_its_shell_and_its_first_command_runs_in_it(ws: Path) -> None:
    with opened(ws) as dispatcher:
        session = dispatcher.session("agent")
        warm_threads_done()
        shell = session.bash
        assert shell is not None and shell.alive
        pid = shell.pid
        assert reply_text(dispatcher, "!echo hi", "agent") == f"re: !echo hi\nexit: 0 | cwd: {ws}\n---\nhi"
        assert session.bash is shell and shell.pid == pid  # no second shell
    assert session.bash is None


def test_a_person_s_front_end_starts_no_shell_ahead(ws: Path) -> None:
    with opened(ws, warm=False) as dispatcher:
        session = dispatcher.session("main")
        warm_threads_done()
        assert session.bash is None


def test_a_topic_that_ended_starts_no_shell(ws: Path) -> None:
    """Ended before its warm-up began, or during it: either way no shell is left running."""
    with opened(ws) as dispatcher:
        ended = Session("gone")
        ended.ended = True
        dispatcher.workspace.warm_shell(ended)
        assert ended.bash is None
        racing = dispatcher.session("racing")
        dispatcher.end_topic("racing")
        warm_threads_done()
        assert racing.bash is None


def test_a_policy_without_the_shell_warms_nothing_and_the_command_says_why(ws: Path) -> None:
    (ws / "stringsh.toml").write_text("[permissions]\nshell = false\n")
    with opened(ws) as dispatcher:
        session = dispatcher.session("agent")
        warm_threads_done()
        assert session.bash is None
        assert reply_text(dispatcher, "!echo hi", "agent").startswith(
            "re: !echo hi\nERROR(NOT_PERMITTED): shell is disabled by policy")


def test_an_mcp_connection_s_topic_warms_its_shell_and_its_end_stops_it(ws: Path) -> None:
    with opened(ws) as dispatcher:
        sessions = Sessions(dispatcher.workspace, dispatcher, None)
        client = sessions.adopt("http-session", "agent")
        warm_threads_done()
        session = dispatcher.sessions[client.topic]
        assert session.bash is not None and session.bash.alive
        sessions.end("http-session")
        assert session.bash is None and client.topic not in dispatcher.sessions


def command_names(pids: set[int]) -> set[str]:
    names = set()
    for pid in pids:
        with contextlib.suppress(OSError):
            names.add(Path(f"/proc/{pid}/comm").read_text().strip())
    return names


def test_the_daemon_starts_a_topic_s_shell_with_its_first_request(ws: Path) -> None:
    """A real daemon: a topic's first request is a read; its shell is running before any command was sent."""
    (ws / "a.txt").write_text("a\n")
    proc = subprocess.Popen([*STRINGSH, "daemon"], cwd=ws, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("<𝒞=string:agent>\n/open a.txt\n</𝒞>\n".encode())
        proc.stdin.flush()
        wait_until(lambda: "bash" in command_names(descendants(proc.pid)), "no shell started for the topic", proc)
        proc.stdin.write("<𝒞=string:agent>\n!echo ready\n</𝒞>\n".encode())
        proc.stdin.close()
        output = proc.stdout.read().decode()
        assert "re: /open a.txt\nOpened a.txt\n---\na\n</𝒞>" in output
        assert f"re: !echo ready\nexit: 0 | cwd: {ws}\n---\nready\n</𝒞>" in output
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
