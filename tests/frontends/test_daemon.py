"""`stringsh daemon`: envelope framing, JSON lines, topics and queues, with the real program on pipes."""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import queue
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from stringsh.commands.table import COMMANDS, CommandSpec, Handler
from stringsh.dispatcher import Dispatcher
from stringsh.protocol.response import Result
from stringsh.protocol.stream import StreamItem
from stringsh.workspace.state import state_folder
from tests.conftest import STRINGSH, run_stringsh, wait_until
from tests.frontends.scripts import SCRIPT, check, make_workspace


def unwrap_envelopes(output: str) -> list[tuple[str, str]]:
    """(topic, reply) pairs of a daemon's output; fails on any text outside an envelope."""
    pairs: list[tuple[str, str]] = []
    topic: str | None = None
    body: list[str] = []
    for line in output.split("\n"):
        if topic is None:
            if not line:
                continue
            assert line.startswith("<𝒞=string:") and line.endswith(">"), line
            topic = line[len("<𝒞=string:") : -1]
        elif line == "</𝒞>":
            pairs.append((topic, "\n".join(body)))
            topic, body = None, []
        else:
            body.append(line)
    assert topic is None, "unterminated envelope"
    return pairs


def test_daemon_reproduces_the_seed_texts(ws: Path) -> None:
    make_workspace(ws)
    proc = run_stringsh(["daemon"], ws, stdin=SCRIPT)
    assert proc.returncode == 0
    pairs = unwrap_envelopes(proc.stdout.decode())
    assert {topic for topic, _ in pairs} == {"main"}
    check([reply for _, reply in pairs])


def test_envelope_input_selects_the_topic(ws: Path) -> None:
    stdin = "/set a = 1\n<𝒞=string:docs>\n/set\n</𝒞>\n<𝒞=string:bad topic>\n/ls\n</𝒞>\n/set\n"
    pairs = unwrap_envelopes(run_stringsh(["daemon"], ws, stdin=stdin).stdout.decode())
    assert sorted(pairs) == sorted(
        [
            ("main", 're: /set a = 1\n{a} = "1"'),
            ("docs", "re: /set\nNo variables set."),
            (
                "bad topic",
                "re: /ls\nERROR(INVALID_TARGET): Invalid topic: bad topic\n"
                "Use main, a tab name of letters, digits, '_' or '-', or bash:<name>.",
            ),
            ("main", 're: /set\nVariables\n---\n{a} = "1"'),
        ]
    )
    main_replies = [reply for topic, reply in pairs if topic == "main"]
    assert main_replies[0].startswith("re: /set a = 1")  # one topic keeps its order


def test_json_mode_round_trip_and_bad_lines(ws: Path) -> None:
    lines = [
        json.dumps({"id": "1", "cmd": "/ls"}),
        "{not json",
        json.dumps({"id": "2", "cmd": "/set\n{k} = v", "topic": "t1"}),
        json.dumps({"id": 7, "cmd": "/nope"}),
        json.dumps({"id": "has space", "cmd": "/ls"}),
        json.dumps(["/ls"]),
        json.dumps({"cmd": "/write x <<EOF\nno end"}),
    ]
    proc = run_stringsh(["daemon", "--json"], ws, stdin="\n".join(lines) + "\n")
    replies = [json.loads(line) for line in proc.stdout.decode().splitlines()]
    by_id = {r["id"]: r for r in replies if r["id"] is not None}
    assert by_id["1"] == {
        "id": "1",
        "ok": True,
        "code": None,
        "topic": "main",
        "content": "re: [1] /ls\nListing ./\n---\n(empty)",
    }
    assert by_id["2"] == {"id": "2", "ok": True, "code": None, "topic": "t1", "content": 're: [2] /set\n{k} = "v"'}
    assert by_id[7]["code"] == "COMMAND_UNSUPPORTED"  # a numeric id comes back as a number
    assert by_id[7]["content"].startswith("re: [7] /nope\nERROR(COMMAND_UNSUPPORTED): Unknown command: /nope")
    assert by_id["has space"]["content"] == "re: /ls\nListing ./\n---\n(empty)"  # any string id is echoed
    anonymous = [r for r in replies if r["id"] is None]
    assert [r["code"] for r in anonymous].count("INVALID_PAYLOAD") == 3
    assert any(
        r["content"].startswith("re: (invalid request)\nERROR(INVALID_PAYLOAD): Malformed JSON request: ")
        for r in anonymous
    )
    assert any(r["content"].startswith("re: /write x\nERROR(INVALID_PAYLOAD): Unterminated heredoc") for r in anonymous)


def test_daemon_answers_each_request_as_it_arrives(ws: Path) -> None:
    proc = subprocess.Popen([*STRINGSH, "daemon"], cwd=ws, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert proc.stdin and proc.stdout
        for n in range(3):
            proc.stdin.write(f"[q{n}] /set n = {n}\n".encode())
            proc.stdin.flush()
            lines = [proc.stdout.readline().decode() for _ in range(4)]
            assert lines == ["<𝒞=string:main>\n", f"re: [q{n}] /set n = {n}\n", f'{{n}} = "{n}"\n', "</𝒞>\n"]
    finally:
        proc.stdin.close()  # type: ignore[union-attr]
        assert proc.wait(timeout=30) == 0


def with_command(name: str, function: Handler) -> dict[str, CommandSpec]:
    """The real command table plus one hidden test command: the table is never changed in place."""

    class LocalCommand(CommandSpec):
        """A test command whose handler is a local function, not a function of a stringsh.commands module."""

        __slots__ = ()

        def handler(self) -> Handler:
            return function

    spec = LocalCommand(name, "", "", syntax=f"/{name}", summary="test", section="Help", hidden=True)
    return {**COMMANDS, name: spec}


@pytest.fixture
def gate():
    """A test-only command that blocks until released, to watch topics queue and run in parallel."""
    started, release = threading.Event(), threading.Event()

    def wait_gate(ctx) -> Result:  # type: ignore[no-untyped-def]
        started.set()
        release.wait(10)
        return Result("released")

    yield started, release, with_command("wait-gate", wait_gate)
    release.set()


class Sink(io.BytesIO):
    def text(self) -> str:
        return self.getvalue().decode()


@contextlib.contextmanager
def served(daemon: object) -> Iterator[queue.Queue[StreamItem | None]]:
    """`daemon` serving, on a thread, the requests put on the queue yielded; its input ends with the block."""
    feed: queue.Queue[StreamItem | None] = queue.Queue()
    server = threading.Thread(target=daemon.serve, args=(iter(feed.get, None),))  # type: ignore[attr-defined]
    server.start()
    try:
        yield feed
    finally:
        feed.put(None)
        server.join(30)
    assert not server.is_alive()


def test_topics_run_in_parallel_and_one_topic_queues(ws: Path, gate) -> None:
    from stringsh.daemon import Daemon

    started, release, commands = gate
    sink = Sink()
    daemon = Daemon(Dispatcher(ws, commands=commands), queue_size=2, out=sink)
    daemon.submit("/wait-gate", "slow")
    assert started.wait(10)
    daemon.submit("/set a = 1", "fast")  # another topic is not held up
    daemon.submit("/set b = 1", "slow")  # queued behind the gate
    daemon.submit("/set c = 1", "slow")  # queue now full (2)
    daemon.submit("[x] /set d = 1", "slow")  # refused at once
    for _ in range(200):
        out = sink.text()
        if "re: /set a = 1" in out:
            break
        time.sleep(0.05)
    assert "re: /set a = 1" in out
    assert "re: [x] /set d = 1\nERROR(QUEUE_FULL): Topic slow already has 2 requests waiting.\n" in out
    assert "re: /set b = 1" not in out
    release.set()
    daemon.drain()
    rest = sink.text()
    assert rest.index("released") < rest.index("re: /set b = 1") < rest.index("re: /set c = 1")


def test_a_reader_stuck_on_a_slow_request_hands_reading_on(ws: Path, gate) -> None:
    """The reading thread runs what it reads, and another thread reads on meanwhile."""
    from stringsh.daemon import Daemon

    started, release, commands = gate
    sink = Sink()
    daemon = Daemon(Dispatcher(ws, commands=commands), out=sink)
    requests = iter(
        [StreamItem("/wait-gate", "slow"), StreamItem("/set a = 1", "fast"), StreamItem("/set b = 2", "slow")]
    )
    server = threading.Thread(target=daemon.serve, args=(requests,))
    server.start()
    assert started.wait(10)
    for _ in range(200):
        if "re: /set a = 1" in sink.text():
            break
        time.sleep(0.02)
    assert "re: /set a = 1" in sink.text()
    assert "re: /set b = 2" not in sink.text()  # queued behind the gate in its topic
    release.set()
    server.join(10)
    assert not server.is_alive()
    out = sink.text()
    assert out.index("re: /wait-gate\nreleased") < out.index("re: /set b = 2")


def test_a_burst_runs_every_topic_at_once_and_leaves_only_spare_readers(ws: Path) -> None:
    """Ten topics' slow requests all run together (each read while the others run); once they end, the threads
    beyond the spare readers end too, while the daemon still serves."""
    from stringsh.daemon import SPARE_READERS, Daemon
    from tests.dialects.mcp.client import wait_until

    running, release = threading.Semaphore(0), threading.Event()

    def wait_gate(ctx) -> Result:  # type: ignore[no-untyped-def]
        running.release()
        release.wait(10)
        return Result("released")

    sink = Sink()
    daemon = Daemon(Dispatcher(ws, commands=with_command("wait-gate", wait_gate)), out=sink)
    with served(daemon) as feed:
        try:
            for n in range(10):
                feed.put(StreamItem(f"[g{n}] /wait-gate", f"t{n}"))
            for _ in range(10):
                assert running.acquire(timeout=10)  # all ten at once: none waits for another to end
            release.set()
            wait_until(lambda: sink.text().count("released") == 10, "the ten replies")

            def alive() -> int:
                return sum(thread.is_alive() for thread in daemon._threads)

            wait_until(lambda: alive() <= SPARE_READERS + 1, f"at most {SPARE_READERS + 1} threads left")
            feed.put(StreamItem("[after] /set a = 1", "t0"))
            wait_until(lambda: "re: [after] /set a = 1" in sink.text(), "a reply after the burst")
        finally:
            release.set()


def test_queue_timeout(ws: Path, gate) -> None:
    from stringsh.daemon import Daemon

    started, release, commands = gate
    sink = Sink()
    daemon = Daemon(Dispatcher(ws, commands=commands), queue_wait=0.3, out=sink)
    daemon.submit("/wait-gate", "main")
    assert started.wait(10)
    daemon.submit("[late] /set a = 1", "main")
    wait_until(lambda: "ERROR(QUEUE_TIMEOUT)" in sink.text())
    assert "released" not in sink.text()  # the late request was answered while the gate still held
    release.set()
    daemon.drain()
    assert (
        "re: [late] /set a = 1\nERROR(QUEUE_TIMEOUT): Waited more than 0.3 s for topic main; the command was not run."
        in sink.text()
    )
    assert "re: /wait-gate\nreleased" in sink.text()


def test_an_exception_in_a_command_is_internal_error_and_the_next_request_is_served(ws: Path) -> None:
    def explode(ctx) -> Result:  # type: ignore[no-untyped-def]
        raise RuntimeError("disk on fire\nsecond line")

    d = Dispatcher(ws, commands=with_command("explode", explode))
    reply = d.execute("[e1] /explode")
    assert (reply.text, reply.code) == (
        "re: [e1] /explode\nERROR(INTERNAL_ERROR): RuntimeError: disk on fire",
        "INTERNAL_ERROR",
    )
    assert d.execute("/set a = 1").ok
    assert "explode" not in COMMANDS


def test_one_topic_keeps_its_order_under_a_burst(ws: Path) -> None:
    stdin = "".join(f"[n{n}] /set n = {n}\n" for n in range(300))
    pairs = unwrap_envelopes(run_stringsh(["daemon"], ws, stdin=stdin).stdout.decode())
    assert sorted(reply.split("\n")[0] for _, reply in pairs) == sorted(f"re: [n{n}] /set n = {n}" for n in range(300))
    ran = [reply.split("\n")[0] for _, reply in pairs if "ERROR(QUEUE_FULL)" not in reply]
    assert ran == sorted(ran, key=lambda line: int(line.split("]")[0][6:]))  # the ones that ran, in order
    assert ran[0] == "re: [n0] /set n = 0"


def test_a_slow_topic_does_not_hold_up_another(ws: Path) -> None:
    proc = subprocess.Popen([*STRINGSH, "daemon"], cwd=ws, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert proc.stdin and proc.stdout
        proc.stdin.write("<𝒞=string:bash:slow>\nsleep 3; echo slept\n</𝒞>\n[fast] /set a = 1\n".encode())
        proc.stdin.flush()
        first = [proc.stdout.readline().decode() for _ in range(4)]
        assert first == ["<𝒞=string:main>\n", "re: [fast] /set a = 1\n", '{a} = "1"\n', "</𝒞>\n"]
    finally:
        proc.stdin.close()  # type: ignore[union-attr]
        rest = proc.stdout.read().decode()  # type: ignore[union-attr]
        assert proc.wait(timeout=30) == 0
    assert rest.startswith("<𝒞=string:bash:slow>\nre: sleep 3; echo slept\nexit: 0 | cwd: ")
    assert rest.endswith("---\nslept\n</𝒞>\n")


def test_a_write_waiting_for_the_lock_holds_up_no_read_grep_or_shell_command(ws: Path) -> None:
    """Another process mid-change holds the workspace's lock (this test, on the real lock file): the daemon's
    write in one topic waits for it, and reads, greps and shell commands of other topics go on meanwhile,
    each topic's next request too (a request's audit record and the shell's sandbox check never wait for it)."""
    (ws / "a.txt").write_text("one needle\n")
    proc = subprocess.Popen([*STRINGSH, "daemon"], cwd=ws, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    def send(text: str) -> None:
        assert proc.stdin is not None
        proc.stdin.write(text.encode())
        proc.stdin.flush()

    line_queue: queue.Queue[bytes] = queue.Queue()
    threading.Thread(target=lambda: [line_queue.put(raw) for raw in proc.stdout or ()], daemon=True).start()

    def next_reply() -> tuple[str, str]:
        """The next envelope (a liveness bound: a reply that never comes fails the test, never hangs it)."""
        lines: list[str] = []
        while not lines or lines[-1] != "</𝒞>\n":
            lines.append(line_queue.get(timeout=60).decode())
        return unwrap_envelopes("".join(lines))[0]

    lock_fd = -1
    try:
        send("[seed] /write seed.txt <<EOF\nseed\nEOF\n")
        assert next_reply()[1].startswith("re: [seed] /write seed.txt\n")
        lock_fd = os.open(state_folder(ws) / "lock", os.O_RDWR)
        fcntl.flock(lock_fd, fcntl.LOCK_EX)
        send("<𝒞=string:w>\n[w] /write b.txt <<EOF\nbee\nEOF\n</𝒞>\n")
        send("<𝒞=string:r>\n[r1] /open a.txt\n</𝒞>\n<𝒞=string:r>\n[r2] /grep -- needle .\n</𝒞>\n")
        send("<𝒞=string:bash:sh>\necho first\n</𝒞>\n<𝒞=string:bash:sh>\necho second\n</𝒞>\n")
        meanwhile = [next_reply() for _ in range(4)]
        assert sorted(topic for topic, _ in meanwhile) == ["bash:sh", "bash:sh", "r", "r"]
        heads = {reply.split("\n")[0] for _, reply in meanwhile}
        assert heads == {"re: [r1] /open a.txt", "re: [r2] /grep -- needle .", "re: echo first", "re: echo second"}
        assert not (ws / "b.txt").exists()  # the write is still waiting for the lock
        fcntl.flock(lock_fd, fcntl.LOCK_UN)
        topic, reply = next_reply()
        assert (topic, reply.split("\n")[0]) == ("w", "re: [w] /write b.txt")
        assert (ws / "b.txt").read_text() == "bee\n"
    finally:
        if lock_fd >= 0:
            os.close(lock_fd)
        proc.stdin.close()  # type: ignore[union-attr]
        assert proc.wait(timeout=30) == 0
