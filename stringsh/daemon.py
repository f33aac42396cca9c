"""`stringsh daemon`: requests on stdin, framed replies on stdout.

Each topic runs one command at a time and queues the rest (bounded); topics run in parallel. Threads take turns
as the reader (leader/follower): the thread that reads a request runs it itself while a follower takes over
reading, so a small request costs no thread hand-off and a slow one never holds up other topics.
"""

from __future__ import annotations

import json
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
from stringsh.protocol.request import parse_request
from stringsh.protocol.response import Reply, format_error_item, format_reply
from stringsh.protocol.stream import read_requests
from stringsh.protocol.topics import parse_topic

REQUEST_ID_TEXT = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")
QUEUE_SIZE = 16
QUEUE_WAIT_SECONDS = 60.0
#: Threads at most; past it the reader runs a request before reading on (slower, never wrong).
MAX_THREADS = 64


@dataclass
class Job:
    text: str
    request_id: str | None
    header: str
    queued_at: float


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
        self._lock = threading.Lock()  # guards the topic state and the thread counts below
        self._busy: set[str] = set()
        self._waiting: dict[str, deque[Job]] = {}
        self._threads: list[threading.Thread] = []
        self._read_lock = threading.Lock()
        self._readers_waiting = 0
        self._eof = False

    def send(self, reply: Reply) -> None:
        if self.json_mode:
            self.writer.write(json_reply(reply.id, reply.ok, reply.code, reply.topic, reply.text))
        else:
            self.writer.write(envelope(reply.topic, reply.text))

    def submit(self, text: str, topic: str | None) -> None:
        """Start a request on its own thread when its topic is free, queue it behind the running one, or answer
        at once when the topic or the queue refuses it."""
        admitted = self.admit(text, topic)
        if admitted is not None:
            self._start(self._run_topic, *admitted)

    def admit(self, text: str, topic: str | None) -> tuple[str, Job] | None:
        """Decide a request's fate in arrival order: (topic, job) to run now, or None (queued or answered)."""
        try:
            request = parse_request(text)
        except StringError as exc:
            self.send(format_error_item(text, (exc.code, exc.text), topic or "main"))
            return None
        try:
            name, _ = parse_topic(topic)
        except StringError as exc:
            self.send(format_reply(request.header, request.id, error=(exc.code, exc.text), topic=topic or ""))
            return None
        job = Job(text, request.id, request.header, time.monotonic())
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
                )
            )
            return None
        return name, job

    def _start(self, target: Callable[..., None], *args: object) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        with self._lock:
            self._threads.append(thread)
        thread.start()

    def _run_topic(self, topic: str, job: Job | None) -> None:
        """Run a job, then whatever queued for its topic meanwhile, in order."""
        while job is not None:
            if time.monotonic() - job.queued_at > self.queue_wait:
                self.send(
                    format_reply(
                        job.header,
                        job.request_id,
                        error=(
                            "QUEUE_TIMEOUT",
                            f"Waited more than {self.queue_wait:g} s for topic {topic}; the command was not run.",
                        ),
                        topic=topic,
                    )
                )
            else:
                self.send(self.dispatcher.execute(job.text, topic))
            with self._lock:
                waiting = self._waiting.get(topic)
                if waiting:
                    job = waiting.popleft()
                else:
                    self._busy.discard(topic)
                    job = None

    def serve(self, requests: Iterator[tuple[str, str | None] | Reply]) -> None:
        """Read and run requests until end of input, then finish what is running."""
        self._start(self._follow, requests)
        self.drain()

    def _follow(self, requests: Iterator[tuple[str, str | None] | Reply]) -> None:
        """Take turns reading: read one request, hand reading to a waiting thread, run the request."""
        while True:
            with self._lock:
                self._readers_waiting += 1
            with self._read_lock:
                with self._lock:
                    self._readers_waiting -= 1
                if self._eof:
                    return
                item = next(requests, None)
                if item is None:
                    self._eof = True
                    return
                # admitted while still the reader, so requests of one topic keep their order
                admitted = self.admit(*item) if not isinstance(item, Reply) else None
                with self._lock:
                    spawn = self._readers_waiting == 0 and len(self._threads) < MAX_THREADS
            if spawn:
                self._start(self._follow, requests)
            if isinstance(item, Reply):
                self.send(item)
            elif admitted is not None:
                self._run_topic(*admitted)

    def line_requests(self) -> Iterator[tuple[str, str | None] | Reply]:
        for item in read_requests(sys.stdin.buffer.readline, envelopes=True):
            if item.error:
                yield format_error_item(item.text, item.error, item.topic or "main")
            else:
                yield item.text, item.topic

    def json_requests(self) -> Iterator[tuple[str, str | None] | Reply]:
        for raw in sys.stdin.buffer:
            line = raw.strip()
            if not line:
                continue
            try:
                message = json.loads(line)
                if not isinstance(message, dict) or not isinstance(message.get("cmd"), str):
                    raise ValueError('expected an object with a string "cmd"')
                request_id = message.get("id")
                if isinstance(request_id, int) and not isinstance(request_id, bool):
                    request_id = str(request_id)
                if request_id is not None and not (isinstance(request_id, str) and REQUEST_ID_TEXT.match(request_id)):
                    raise ValueError('"id" must be 1-64 characters of A-Z a-z 0-9 . _ : -')
                topic = message.get("topic")
                if topic is not None and not isinstance(topic, str):
                    raise ValueError('"topic" must be a string')
            except (ValueError, UnicodeDecodeError) as exc:
                reason = str(exc).splitlines()[0]
                text = (
                    f"re: (invalid request)\nERROR(INVALID_PAYLOAD): Malformed JSON request: {reason}\n"
                    'Send one object per line: {"id": "1", "cmd": "/help", "topic": "main"}'
                )
                yield Reply(text, False, "INVALID_PAYLOAD", None, "main")
                continue
            cmd = message["cmd"]
            if request_id is not None and not cmd.lstrip().startswith("["):
                cmd = f"[{request_id}] {cmd.lstrip()}"
            yield cmd, topic

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
