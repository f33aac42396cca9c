"""A front end that serves until stopped ends cleanly on SIGTERM as on Ctrl-C (cli.py): one line on stderr, status
143 or 130, its topic shells and their jobs ended, and the audit log's last records written. Real processes."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.conftest import STRINGSH, default_start, wait_until
from tests.repl.test_pty_repl import running

STOPS = {signal.SIGTERM: (143, "stringsh: terminated\n"), signal.SIGINT: (130, "stringsh: interrupted\n")}
END = "</𝒞>\n".encode()


#: A request each front end answers, to know it is serving before the signal comes.
ASKED = {
    "daemon": b"/set a = 1\n",
    "daemon --json": b'{"id": 1, "cmd": "/set a = 1"}\n',
    "run -": b"/set a = 1\n",
    "tools": b'{"id": 1, "tool": "read", "args": {"file_path": "note.md"}}\n',
    "operator": b"OPERATOR_CMD\nid: 1\nop: fs.read\npath: note.md\nEND_OPERATOR_CMD\n",
    "--plain": b"/set a = 1\n",
}


@pytest.mark.parametrize(("front", "stop"), [
    (front, stop) for front in ASKED for stop in STOPS
    if (front, stop) != ("--plain", signal.SIGINT)  # the plain loop's Ctrl-C cancels the input, as a terminal's
], ids=lambda value: getattr(value, "name", value))
def test_a_stop_signal_ends_the_front_end_with_its_status(ws: Path, front: str, stop: signal.Signals) -> None:
    (ws / "note.md").write_text("note\n")
    proc = subprocess.Popen([*STRINGSH, *front.split()], cwd=ws, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(ASKED[front])
        proc.stdin.flush()
        assert proc.stdout.readline()  # answered: serving, and waiting for the next request
        proc.send_signal(stop)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    status, line = STOPS[stop]
    assert (proc.returncode, err.decode()) == (status, default_start() + line)


@pytest.mark.parametrize("stop", list(STOPS), ids=lambda stop: stop.name)
def test_a_daemon_stopped_ends_its_shells_jobs_and_writes_its_last_record(ws: Path, tmp_path: Path,
                                                                        stop: signal.Signals) -> None:
    # the shell unsandboxed (a policy of the user's own, named with --policy), where only a clean stop ends a job
    policy = tmp_path / "policy.toml"
    policy.write_text("[shell]\nsandbox = false\n")
    job, foreground = f"sleep 600.{os.getpid()}{stop.value}1", f"sleep 600.{os.getpid()}{stop.value}2"
    proc = subprocess.Popen([*STRINGSH, "--policy", str(policy), "daemon"], cwd=ws, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(b"/write last.txt <<EOF\nlast\nEOF\n")
        proc.stdin.flush()
        while proc.stdout.readline() != END:  # answered: its audit record may still be on its way to the log
            pass
        proc.stdin.write(f"!{job} &\n!{foreground}\n".encode())
        proc.stdin.flush()
        wait_until(lambda: running(job) and running(foreground))
        proc.send_signal(stop)
        proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == STOPS[stop][0]
    assert not running(job) and not running(foreground)
    tail = subprocess.run([*STRINGSH, "audit", "tail", "-n", "5"], cwd=ws, capture_output=True, text=True, timeout=60)
    records = [line.split("  ") for line in tail.stdout.splitlines()]  # time, topic, request, outcome, took, paths
    assert [(record[2], record[3], record[5]) for record in records][:2] == [
        ("/write", "ok", "last.txt (change 1)"), ("!", "ok", f"{job} &")]


def test_mcp_on_stdio_answers_its_call_then_ends_its_shells_on_sigterm(tmp_path: Path) -> None:
    """As the client closing stdin ends it, after Ctrl-C to a shell command still running GRACE seconds later (as
    `mcp --http` stops): the call is answered, the shell's jobs end, status 0."""
    import json

    from tests.dialects.mcp.client import server_env
    from tests.dialects.mcp.test_mcp_robust import INIT, INITIALIZED, call, replies

    root = tmp_path / "ws"
    root.mkdir()
    policy = tmp_path / "policy.toml"
    policy.write_text("[shell]\nsandbox = false\n")  # unsandboxed: only a clean stop ends a job
    job, foreground = f"sleep 600.{os.getpid()}31", f"sleep 600.{os.getpid()}32"
    proc = subprocess.Popen([*STRINGSH, "--root", str(root), "--policy", str(policy), "mcp"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=server_env())
    assert proc.stdin is not None
    try:
        for message in (INIT, INITIALIZED, call(2, "bash", {"command": f"{job} & {foreground}"})):
            proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()
        wait_until(lambda: running(job) and running(foreground))
        proc.send_signal(signal.SIGTERM)
        initialized, answered = replies(proc, 2)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert (initialized["id"], answered["id"]) == (1, 2)
    text = answered["result"]["content"][0]["text"]  # type: ignore[index]
    assert text.startswith(f"re: !{job} & {foreground}\nexit: 130 | cwd: "), text
    assert proc.returncode == 0
    assert err.endswith("stringsh: SIGTERM: finishing the calls in flight, then closing\n"), err
    assert not running(job) and not running(foreground)
