"""`stringsh daemon`: requests on stdin, framed replies on stdout.

Each topic runs one command at a time and queues the rest (bounded); topics run in parallel. The threads take turns
as the reader (leader and followers): the thread that reads a request passes reading on to an idle thread, starting
one when none waits, and then runs the request itself. So a request costs no thread hand-off, and the next one is
read at once, however long this one takes.

Each request is parsed and its topic resolved once, on admission; the daemon's per-topic queue is the only
serialisation (the dispatcher's own topic lock is for front ends that do not queue).
"""

from __future__ import annotations

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
#: Idle threads kept waiting to read; one more that finishes a request ends, so a burst leaves no crowd behind.
SPARE_READERS = 4


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
        #: Signalled when a queued request leaves its queue; the thread answering QUEUE_TIMEOUT waits on it.
        self._dequeued = threading.Condition(self._lock)
        self._expiring = False
        self._threads: list[threading.Thread] = []
        self._read_lock = threading.Lock()  # held by the one thread reading; the idle ones wait for it
        self._eof = False
        #: Threads waiting for the read lock: the reader starts another when none does.
        self._idle = 0

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
        full = expirer = False
        with self._lock:
            queued = name in self._busy
            if not queued:
                self._busy.add(name)
            else:
                waiting = self._waiting.setdefault(name, deque())
                full = len(waiting) >= self.queue_size
                if not full:
                    waiting.append(job)
                    expirer, self._expiring = not self._expiring, True
        if not queued:
            return job
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
        elif expirer:
            self._start(self._expire)
        return None

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
                self._timed_out(job)
            else:
                with self.dispatcher.records_after_reply():
                    self.send(self.dispatcher.run_serialised(request, job.session), job.json_id)
            with self._lock:
                waiting = self._waiting.get(topic)
                if waiting:
                    job = waiting.popleft()
                    self._dequeued.notify()
                else:
                    self._busy.discard(topic)
                    job = None

    def _timed_out(self, job: Job) -> None:
        request, topic = job.request, job.session.topic
        error = ("QUEUE_TIMEOUT", f"Waited more than {self.queue_wait:g} s for topic {topic}; the command was not run.")
        self.send(format_reply(request.header, request.id, error=error, topic=topic), job.json_id)

    def _expire(self) -> None:
        """Answer QUEUE_TIMEOUT to each request the moment it has waited `queue_wait` in its topic's queue, not when
        the command ahead of it ends (which may be minutes later); runs while any request waits. Whoever takes a
        request off its queue answers it: this thread, or the topic's when its turn comes first."""
        while True:
            with self._lock:
                now = time.monotonic()
                expired = []
                for queue in self._waiting.values():
                    while queue and now - queue[0].queued_at > self.queue_wait:
                        expired.append(queue.popleft())
                if not expired:
                    heads = [queue[0].queued_at for queue in self._waiting.values() if queue]
                    if not heads:
                        self._expiring = False
                        return
                    self._dequeued.wait(min(heads) + self.queue_wait - now + 0.001)
                    continue
            for job in expired:
                self._timed_out(job)

    def serve(self, requests: Iterator[StreamItem | Reply | Answered]) -> None:
        """Read and run requests until end of input, then finish what is running."""
        from stringsh import serving
        from stringsh.documents.indexwish import in_background

        serving.settle()
        in_background(self.dispatcher.workspace.root)  # the symbol index, from the first /symbols on
        self.dispatcher.warm_shells = True  # a topic's shell starts when the topic is made, not with its first command
        self._start(self._follow, requests)
        self.drain()

    def _follow(self, requests: Iterator[StreamItem | Reply | Answered], counted: bool = False) -> None:
        """Wait for the turn to read, read a request, pass reading on, run it; end when input does, or when enough
        other threads are idle. `counted`: the starter already counted this thread idle."""
        while True:
            if not counted:
                with self._lock:
                    self._idle += 1
            counted = False
            with self._read_lock:
                with self._lock:
                    self._idle -= 1
                if self._eof:
                    return
                item = next(requests, None)
                if item is None:
                    self._eof = True
                    return
                # admitted while still the reader, so requests of one topic keep their order
                job = None
                if isinstance(item, StreamItem):
                    json_id = item.json_id if isinstance(item, JsonItem) else None
                    job = self.admit(item.text, item.topic, item.request, json_id)
                if job is not None:
                    self._keep_a_reader(requests)
            if isinstance(item, Reply):
                self.send(item)
            elif isinstance(item, Answered):
                self.send(item.reply, item.json_id)
            elif job is not None:
                self._run_topic(job)
                with self._lock:
                    if self._idle >= SPARE_READERS:
                        return

    def _keep_a_reader(self, requests: Iterator[StreamItem | Reply | Answered]) -> None:
        """Before running a request: start a thread to read on unless one already waits (or the cap is reached)."""
        with self._lock:
            if self._idle:
                return
            self._threads = [thread for thread in self._threads if thread.is_alive()]
            if len(self._threads) >= MAX_THREADS:
                return
            # registered and started under the lock: drain() never sees a moment with no reader
            reader = threading.Thread(target=self._follow, args=(requests, True), daemon=True)
            self._threads.append(reader)
            self._idle += 1  # counted at once, so a second reader before it starts makes no third
            reader.start()

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
    daemon = Daemon(dispatcher, json_mode=json_mode)
    daemon.serve(daemon.json_requests() if json_mode else daemon.line_requests())
    return 0


def json_request(line: bytes) -> JsonItem | Answered:
    """One `daemon --json` line: the request to run, or the reply refusing it (naming its id when it can)."""
    from stringsh.protocol.jsonbounds import loads as json_loads  # JSON mode only
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
