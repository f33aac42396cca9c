"""`stringsh daemon`'s reading thread runs what it reads, and hands reading on only when a request runs long: a
burst is all answered in order per topic, and a request that arrives while a slow one runs is read and answered."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from stringsh.dispatcher import Dispatcher
from stringsh.protocol.stream import StreamItem
from tests.conftest import run_stringsh, wait_until
from tests.frontends.test_daemon import Sink, gate, served, unwrap_envelopes  # noqa: F401 (gate: test_daemon.py's fixture)


def test_a_burst_over_several_topics_in_one_write_is_all_answered_in_order_per_topic(ws: Path) -> None:
    topics = ["main", "a", "b"]
    stdin = "".join(
        f"<𝒞=string:{topic}>\n[{topic}-{n}] /set n = {n}\n</𝒞>\n" for n in range(40) for topic in topics
    )
    proc = run_stringsh(["daemon"], ws, stdin=stdin)
    assert proc.returncode == 0
    pairs = unwrap_envelopes(proc.stdout.decode())
    assert len(pairs) == 120  # one reply each
    for topic in topics:
        heads = [reply.split("\n")[0] for name, reply in pairs if name == topic]
        assert sorted(heads) == sorted(f"re: [{topic}-{n}] /set n = {n}" for n in range(40))
        ran = [reply for name, reply in pairs if name == topic and "ERROR(QUEUE_FULL)" not in reply]
        numbers = [int(reply.split("\n")[0].split("]")[0].split("-")[1]) for reply in ran]
        assert numbers == sorted(numbers)  # the ones that ran, in the order sent
        assert numbers[0] == 0
        assert all(reply.endswith(f'{{n}} = "{n}"') for reply, n in zip(ran, numbers, strict=True))


def test_a_request_arriving_while_the_reader_runs_a_slow_one_is_read_and_answered(ws: Path, gate) -> None:  # noqa: F811
    """The reader runs the slow request itself; the next request, on another topic, arrives only afterwards (no
    burst to see), and is answered while the slow one still runs; one on the slow topic waits its turn."""
    from stringsh.daemon import Daemon

    started, release, commands = gate
    sink = Sink()
    with served(Daemon(Dispatcher(ws, commands=commands), out=sink)) as feed:
        try:
            feed.put(StreamItem("[slow] /wait-gate", "slow"))
            assert started.wait(30)
            feed.put(StreamItem("[same] /set b = 2", "slow"))
            feed.put(StreamItem("[quick] /set a = 1", "quick"))
            wait_until(lambda: "re: [quick] /set a = 1" in sink.text())
            assert "re: [same]" not in sink.text()  # queued behind the slow one in its topic
            assert "released" not in sink.text()
            release.set()
            wait_until(lambda: "re: [same] /set b = 2" in sink.text())
        finally:
            release.set()
    out = sink.text()
    assert out.index("re: [quick] /set a = 1\n{a} = \"1\"") < out.index("re: [slow] /wait-gate\nreleased")
    assert out.index("re: [slow] /wait-gate\nreleased") < out.index("re: [same] /set b = 2\n{b} = \"2\"")


def test_replies_of_one_client_taking_turns_come_back_one_by_one(ws: Path) -> None:
    """Request, reply, request: each reply comes before the next request is sent (the reader answers it itself)."""
    from stringsh.daemon import Daemon

    sink = Sink()
    with served(Daemon(Dispatcher(ws), out=sink)) as feed:
        for n in range(20):
            feed.put(StreamItem(f"[t{n}] /set n = {n}", "main"))
            wait_until(lambda n=n: f're: [t{n}] /set n = {n}\n{{n}} = "{n}"' in sink.text())
    assert [reply.split("\n")[0] for _, reply in unwrap_envelopes(sink.text())] == [
        f"re: [t{n}] /set n = {n}" for n in range(20)
    ]


def test_a_reader_that_fails_ends_serving_rather_than_leaving_the_daemon_waiting(ws: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A bug in reading requests ends the input: what was read is answered and serve() returns (it waited for the
    dead reader for ever); the error is the thread's, reported as any thread's is."""
    import threading

    from stringsh.daemon import Daemon

    failed: list[type[BaseException]] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: failed.append(args.exc_type))

    def requests() -> Iterator[StreamItem]:
        yield StreamItem("[one] /set a = 1", None)
        raise RuntimeError("a reader's bug")

    sink = Sink()
    done = threading.Thread(target=Daemon(Dispatcher(ws), out=sink).serve, args=(requests(),), daemon=True)
    done.start()
    done.join(60)
    assert not done.is_alive()
    assert failed == [RuntimeError]
    assert sink.text() == '<𝒞=string:main>\nre: [one] /set a = 1\n{a} = "1"\n</𝒞>\n'

