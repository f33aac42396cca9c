"""`stringsh daemon`: requests on stdin, framed replies on stdout.

Each topic runs one command at a time and queues the rest (bounded); topics run in parallel. The thread that reads
a request runs it itself and then reads on, so a quick request costs no thread hand-off. A watchdog notices when
the reading thread has been busy with one request for a few milliseconds and starts another thread to read on, so a
slow request never holds up other topics for longer than that.

Each request is parsed and its topic resolved once, on admission; the daemon's per-topic queue is the only
serialisation (the dispatcher's own topic lock is for front ends that do not queue).
"""

from __future__ import annotations

import gc
import re
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import BinaryIO

from stringsh.dispatcher import Dispatcher
from stringsh.errors import StringError
from stringsh.output import ReplyWriter
from stringsh.protocol.framing import envelope, json_reply
from stringsh.protocol.request import Request, parse_request
from stringsh.protocol.response import Reply, format_error_item, format_reply
from stringsh.protocol.stream import StreamItem, read_requests
from stringsh.session import Session

REQUEST_ID_TEXT = r"^[A-Za-z0-9._:-]{1,64}$"  # `daemon --json` only; compiled by `re` on first use
#: `daemon --json`: the fields a request may have.
JSON_FIELDS = ("id", "cmd", "topic")
JSON_HINT = 'Send one object per line: {"id": "1", "cmd": "/help", "topic": "main"}'
#: A `daemon --json` request's id as decoded: echoed in its reply as it came (None: the request had none).
JsonId = str | int | float | None
QUEUE_SIZE = 16
QUEUE_WAIT_SECONDS = 60.0
#: Threads at most; past it the reader runs a request before reading on (slower, never wrong).
MAX_THREADS = 64
#: How often the watchdog looks at the reading thread while requests come: a thread still on the same request a
#: whole period later is relieved of reading, so another topic waits 5-10 ms at most.
WATCH_SECONDS = 0.005
#: The watchdog sleeps until the next request after this long without one.
WATCH_IDLE_SECONDS = 0.5


@dataclass
class Job:
    request: Request
    session: Session
    queued_at: float
    #: `daemon --json`: the request's id, which its reply echoes as sent (its JSON type and value).
    json_id: JsonId = None


@dataclass
class JsonItem(StreamItem):
    """A `daemon --json` request; `json_id` as in `Job`."""

    json_id: JsonId = None


@dataclass
class Answered:
    """A reply decided while reading a `daemon --json` line; `json_id` as in `Job`."""

    reply: Reply
    json_id: JsonId = None


class Daemon:
    def __init__(
        self,
        dispatcher: Dispatcher,
        *,
        json_mode: bool = False,
        queue_size: int = QUEUE_SIZE,
        queue_wait: float = QUEUE_WAIT_SECONDS,
        out: BinaryIO | None = None,
    ) -> None:
        self.dispatcher = dispatcher
        self.json_mode = json_mode
        self.queue_size = queue_size
        self.queue_wait = queue_wait
        self.writer = ReplyWriter(out or sys.stdout.buffer)
        self._lock = threading.Lock()  # guards the topic state, the thread list and the reading role below
        self._busy: set[str] = set()
        self._waiting: dict[str, deque[Job]] = {}
        self._threads: list[threading.Thread] = []
        self._read_lock = threading.Lock()
        self._eof = False
        #: The reading role: the generation of the thread that reads next, whether it is running a request
        #: (then nobody reads), and how many requests have been read (the watchdog's clock).
        self._role = 0
        self._role_running = False
        self._served = 0
        self._watch_wake = threading.Event()

    def send(self, reply: Reply, json_id: JsonId = None) -> None:
        if self.json_mode:
            # the JSON id comes back exactly as it came; without one, the `[id]` the command text started with
            request_id = reply.id if json_id is None else json_id
            self.writer.write(json_reply(request_id, reply.ok, reply.code, reply.topic, reply.text, reply.fields))
        else:
            self.writer.write(envelope(reply.topic, reply.text))

    def submit(self, text: str, topic: str | None) -> None:
        """Start a request on its own thread when its topic is free, queue it behind the running one, or answer
        at once when the topic or the queue refuses it."""
        job = self.admit(text, topic)
        if job is not None:
            self._start(self._run_topic, job)

    def admit(
        self, text: str, topic: str | None, request: Request | None = None, json_id: JsonId = None
    ) -> Job | None:
        """Decide a request's fate in arrival order: the job to run now, or None (queued or answered).

        The request is parsed (unless the line reader did) and its topic's session found here, once; the job
        carries both to the run."""
        if request is None:
            try:
                request = parse_request(text)
            except StringError as exc:
                self.send(format_error_item(text, (exc.code, exc.text), topic or "main"), json_id)
                return None
        try:
            session = self.dispatcher.session(topic)
        except StringError as exc:
            reply = format_reply(request.header, request.id, error=(exc.code, exc.text), topic=topic or "")
            self.send(reply, json_id)
            return None
        name = session.topic
        job = Job(request, session, time.monotonic(), json_id)
        with self._lock:
            if name in self._busy:
                waiting = self._waiting.setdefault(name, deque())
                if len(waiting) < self.queue_size:
                    waiting.append(job)
                    return None
                full = True
            else:
                self._busy.add(name)
                full = False
        if full:
            self.send(
                format_reply(
                    request.header,
                    request.id,
                    error=(
                        "QUEUE_FULL",
                        f"Topic {name} already has {self.queue_size} requests waiting.\n"
                        "Wait for replies, then send again.",
                    ),
                    topic=name,
                ),
                json_id,
            )
            return None
        return job

    def _start(self, target: Callable[..., None], *args: object) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        with self._lock:
            self._threads = [running for running in self._threads if running.is_alive()]
            self._threads.append(thread)
        thread.start()

    def _run_topic(self, job: Job | None) -> None:
        """Run a job, then whatever queued for its topic meanwhile, in order. The topic's queue is the only
        serialisation: nothing else runs in this session until the queue is empty."""
        while job is not None:
            topic = job.session.topic
            request = job.request
            if time.monotonic() - job.queued_at > self.queue_wait:
                self.send(
                    format_reply(
                        request.header,
                        request.id,
                        error=(
                            "QUEUE_TIMEOUT",
                            f"Waited more than {self.queue_wait:g} s for topic {topic}; the command was not run.",
                        ),
                        topic=topic,
                    ),
                    job.json_id,
                )
            else:
                with self.dispatcher.records_after_reply():
                    self.send(self.dispatcher.run_serialised(request, job.session), job.json_id)
            with self._lock:
                waiting = self._waiting.get(topic)
                if waiting:
                    job = waiting.popleft()
                else:
                    self._busy.discard(topic)
                    job = None

    def serve(self, requests: Iterator[StreamItem | Reply | Answered]) -> None:
        """Read and run requests until end of input, then finish what is running."""
        from stringsh import serving

        serving.settle()
        self.dispatcher.warm_shells = True  # a topic's shell starts when the topic is made, not with its first command
        watchdog = threading.Thread(target=self._watch, args=(requests,), daemon=True)
        watchdog.start()
        self._start(self._follow, requests, self._role)
        self.drain()
        self._watch_wake.set()  # lets the watchdog see the end of input
        watchdog.join()

    def _follow(self, requests: Iterator[StreamItem | Reply | Answered], role: int) -> None:
        """Read a request, run it, read the next; leave when the watchdog gave reading to another thread."""
        while True:
            with self._read_lock:
                if self._eof:
                    return
                item = next(requests, None)
                if item is None:
                    self._eof = True
                    self._watch_wake.set()
                    return
                # admitted while still the reader, so requests of one topic keep their order
                job = None
                if isinstance(item, StreamItem):
                    json_id = item.json_id if isinstance(item, JsonItem) else None
                    job = self.admit(item.text, item.topic, item.request, json_id)
                with self._lock:
                    self._role_running = True
                    self._served += 1
            if not self._watch_wake.is_set():
                self._watch_wake.set()
            if isinstance(item, Reply):
                self.send(item)
            elif isinstance(item, Answered):
                self.send(item.reply, item.json_id)
            elif job is not None:
                self._run_topic(job)
            with self._lock:
                if self._role != role:
                    return
                self._role_running = False

    def _watch(self, requests: Iterator[StreamItem | Reply | Answered]) -> None:
        """Start another reader when the reading thread has run one request for a whole watch period."""
        seen = -1
        last_request = time.monotonic()
        while not self._eof:
            self._watch_wake.wait()
            time.sleep(WATCH_SECONDS)
            now = time.monotonic()
            with self._lock:
                if self._eof:
                    return
                self._threads = [thread for thread in self._threads if thread.is_alive()]
                if self._role_running and self._served == seen and len(self._threads) < MAX_THREADS:
                    # registered and started under the lock: drain() never sees a moment with no reader
                    self._role += 1
                    self._role_running = False
                    reader = threading.Thread(target=self._follow, args=(requests, self._role), daemon=True)
                    self._threads.append(reader)
                    reader.start()
                if self._served != seen:
                    seen, last_request = self._served, now
                elif not self._role_running and now - last_request > WATCH_IDLE_SECONDS:
                    self._watch_wake.clear()  # the reader sets it again with its next request

    def line_requests(self) -> Iterator[StreamItem | Reply]:
        for item in read_requests(sys.stdin.buffer.readline, envelopes=True):
            if item.error:
                yield format_error_item(item.text, item.error, item.topic or "main")
            else:
                yield item

    def json_requests(self) -> Iterator[StreamItem | Answered]:
        for raw in sys.stdin.buffer:
            line = raw.strip()
            if line:
                yield json_request(line)

    def drain(self) -> None:
        """Wait until every request read so far has run and been answered."""
        while True:
            with self._lock:
                running = [thread for thread in self._threads if thread.is_alive()]
                self._threads = running
            if not running:
                return
            for thread in running:
                thread.join()


def run_daemon(dispatcher: Dispatcher, *, json_mode: bool = False) -> int:
    # what start-up loaded lives as long as the daemon: keep it out of every garbage collection (~8% off p50 here)
    gc.freeze()
    daemon = Daemon(dispatcher, json_mode=json_mode)
    daemon.serve(daemon.json_requests() if json_mode else daemon.line_requests())
    return 0


def json_request(line: bytes) -> JsonItem | Answered:
    """One `daemon --json` line: the request to run, or the reply refusing it (naming its id when it can)."""
    from json import loads as json_loads  # JSON mode only

    from stringsh.protocol.jsonfields import quoted, unknown_field

    json_id: JsonId = None
    try:
        message = json_loads(line, parse_constant=_not_json, parse_float=_finite_float)
        if not isinstance(message, dict):
            raise ValueError('expected an object with a string "cmd"')
        # read before anything else is refused, so a refusal still names the request it refuses
        raw_id = message.get("id")
        if not isinstance(raw_id, str | int | float) and raw_id is not None:
            return _refused("INVALID_REQUEST", f"id must be a string, number or boolean: {quoted(raw_id)}",
                            JSON_HINT, None)
        json_id = raw_id
        if not isinstance(message.get("cmd"), str):
            raise ValueError('expected an object with a string "cmd"')
        unknown = unknown_field(message, JSON_FIELDS)
        if unknown is not None:
            return _refused(unknown.code, unknown.message, unknown.hint, json_id)
        topic = message.get("topic")
        if topic is not None and not isinstance(topic, str):
            raise ValueError('"topic" must be a string')
    except (ValueError, UnicodeDecodeError) as exc:
        reason = str(exc).splitlines()[0]
        return _refused("INVALID_PAYLOAD", f"Malformed JSON request: {reason}", JSON_HINT, json_id)
    cmd = message["cmd"]
    if json_id is not None and not cmd.lstrip().startswith("["):
        # the `re:` line names the request too, where the id can be written as String's `[id]`
        text = json_id if isinstance(json_id, str) else _json_text(json_id)
        if re.match(REQUEST_ID_TEXT, text):
            cmd = f"[{text}] {cmd.lstrip()}"
    return JsonItem(cmd, topic, json_id=json_id)


def _refused(code: str, message: str, hint: str | None, json_id: JsonId) -> Answered:
    text = f"re: (invalid request)\nERROR({code}): {message}" + (f"\n{hint}" if hint else "")
    return Answered(Reply(text, False, code, None, "main"), json_id)


def _json_text(value: JsonId) -> str:
    from json import dumps

    return dumps(value)


def _not_json(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    """A JSON number as Python reads it (`1e2` is 100.0); one too large for a float is refused, not made infinite."""
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"number out of range: {text[:32]}")
    return value
