"""Agents' topics start their shell when the topic is made (Dispatcher.warm_shells: the daemon, MCP), so the first
command does not wait for the sandbox; the first command runs in that shell, a topic that ends stops it, and a
front end for a person (the REPL, `-c`) starts none ahead."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from pathlib import Path

from stringsh.dialects.mcp.sessions import Sessions
from stringsh.dispatcher import Dispatcher
from stringsh.session import Session
from tests.conftest import STRINGSH


def warm_threads_done() -> None:
    for thread in threading.enumerate():
        if thread.name == "stringsh-warm-shell":
            thread.join(60)
            assert not thread.is_alive(), "a shell still warming up after 60 s"


def reply_text(dispatcher: Dispatcher, text: str, topic: str) -> str:
    return dispatcher.execute(text, topic).text


def test_a_new_topic_starts_its_shell_and_its_first_command_runs_in_it(ws: Path) -> None:
    dispatcher = Dispatcher(ws)
    dispatcher.warm_shells = True
    try:
        dispatcher.check()
        session = dispatcher.session("agent")
        warm_threads_done()
        shell = session.bash
        assert shell is not None and shell.alive
        pid = shell.pid
        assert reply_text(dispatcher, "!echo hi", "agent") == f"re: !echo hi\nexit: 0 | cwd: {ws}\n---\nhi"
        assert session.bash is shell and shell.pid == pid  # no second shell
    finally:
        dispatcher.close()
    assert session.bash is None


def test_a_person_s_front_end_starts_no_shell_ahead(ws: Path) -> None:
    dispatcher = Dispatcher(ws)
    try:
        dispatcher.check()
        session = dispatcher.session("main")
        warm_threads_done()
        assert session.bash is None
    finally:
        dispatcher.close()


def test_a_topic_that_ended_starts_no_shell(ws: Path) -> None:
    """Ended before its warm-up began, or during it: either way no shell is left running."""
    dispatcher = Dispatcher(ws)
    dispatcher.check()
    try:
        ended = Session("gone")
        ended.ended = True
        dispatcher.workspace.warm_shell(ended)
        assert ended.bash is None
        dispatcher.warm_shells = True
        racing = dispatcher.session("racing")
        dispatcher.end_topic("racing")
        warm_threads_done()
        assert racing.bash is None
    finally:
        dispatcher.close()


def test_a_policy_without_the_shell_warms_nothing_and_the_command_says_why(ws: Path) -> None:
    (ws / "stringsh.toml").write_text("[permissions]\nshell = false\n")
    dispatcher = Dispatcher(ws)
    dispatcher.warm_shells = True
    try:
        dispatcher.check()
        session = dispatcher.session("agent")
        warm_threads_done()
        assert session.bash is None
        assert reply_text(dispatcher, "!echo hi", "agent").startswith(
            "re: !echo hi\nERROR(NOT_PERMITTED): shell is disabled by policy")
    finally:
        dispatcher.close()


def test_an_mcp_connection_s_topic_warms_its_shell_and_its_end_stops_it(ws: Path) -> None:
    dispatcher = Dispatcher(ws)
    dispatcher.warm_shells = True
    try:
        dispatcher.check()
        sessions = Sessions(dispatcher.workspace, dispatcher, None)
        client = sessions.adopt("stdio", "agent")
        warm_threads_done()
        session = dispatcher.sessions[client.topic]
        assert session.bash is not None and session.bash.alive
        sessions.end("stdio")
        assert session.bash is None and client.topic not in dispatcher.sessions
    finally:
        dispatcher.close()


def descendants(pid: int) -> list[str]:
    """The command names of a process's living descendants."""
    parents: dict[int, int] = {}
    names: dict[int, str] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            names[int(entry)] = stat[stat.index("(") + 1:stat.rindex(")")]
            parents[int(entry)] = int(stat[stat.rindex(")") + 2:].split()[1])
    found = []
    for child in names:
        ancestor = parents.get(child, 0)
        while ancestor > 1 and ancestor != pid:
            ancestor = parents.get(ancestor, 0)
        if ancestor == pid:
            found.append(names[child])
    return found


def test_the_daemon_starts_a_topic_s_shell_with_its_first_request(ws: Path) -> None:
    """A real daemon: a topic's first request is a read; its shell is running before any command was sent."""
    (ws / "a.txt").write_text("a\n")
    proc = subprocess.Popen([*STRINGSH, "daemon"], cwd=ws, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("<𝒞=string:agent>\n/open a.txt\n</𝒞>\n".encode())
        proc.stdin.flush()
        deadline = time.monotonic() + 60
        while "bash" not in descendants(proc.pid):
            assert time.monotonic() < deadline, "no shell started for the topic"
            time.sleep(0.05)
        proc.stdin.write("<𝒞=string:agent>\n!echo ready\n</𝒞>\n".encode())
        proc.stdin.close()
        output = proc.stdout.read().decode()
        assert "re: /open a.txt\nOpened a.txt\n---\na\n</𝒞>" in output
        assert f"re: !echo ready\nexit: 0 | cwd: {ws}\n---\nready\n</𝒞>" in output
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
