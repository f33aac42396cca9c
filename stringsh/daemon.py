"""`stringsh daemon`: requests on stdin, framed replies on stdout.

Each topic runs one command at a time and queues the rest (bounded); topics run in parallel. The thread that reads a
request runs it itself and then reads on: a quick request wakes no other thread (a hand-off per request cost a
client's round trip more than its reading gained). A watchdog hands the turn to read to an idle thread (starting
one when none waits) once the reader has run one request for HAND_ON_SECONDS, so a request of another topic is
read within that, however long the one before it runs; the watchdog wakes at most that often while requests
come, and sleeps once they stop. An in-place edit joining group commit (the batch ahead, the writers its batch
gathers, the syncs) hands the turn on at once (Dispatcher.on_wait): the next writer's request is read while it
waits, and joins a batch.

Each request is parsed and its topic resolved once, on admission; the daemon's per-topic queue is the only
serialisation (the dispatcher's own topic lock is for front ends that do not queue).
"""

from __future__ import annotations

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
from stringsh.protocol.jsonrequests import Answered, JsonId, JsonItem, json_request
from stringsh.protocol.request import Request, parse_request
from stringsh.protocol.response import Reply, format_error_item, format_reply
from stringsh.protocol.stdinput import DescriptorLines, InputLines
from stringsh.protocol.stream import StreamItem, read_requests
from stringsh.session import Session

QUEUE_SIZE = 16
QUEUE_WAIT_SECONDS = 60.0
#: Threads at most; past it the reader runs a request before reading on (slower, never wrong).
MAX_THREADS = 64
#: Idle threads kept waiting to read; one more that finishes a request ends, so a burst leaves no crowd behind.
SPARE_READERS = 4
#: A request the reading thread runs for longer than this hands reading to another thread, so a request of another
#: topic that arrives meanwhile waits this long at most to be read (a quick request hands nothing on).
HAND_ON_SECONDS = 0.002


@dataclass
class Job:
    request: Request
    session: Session
    queued_at: float
    #: `daemon --json`: the request's id, which its reply echoes as sent (its JSON type and value).
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
        self._eof = False
        #: The turn to read: one thread has it (reading, or running what it read); `_free` while handed on and
        #: not yet taken. Idle threads wait for it in `_turn`, and count themselves in `_idle`.
        self._turn = threading.Condition(self._lock)
        self._free = False
        self._idle = 0
        #: The job the reading thread is running itself, since when, and how many it has started: the watchdog's
        #: view, which hands the turn on when one runs long.
        self._inline: Job | None = None
        self._inline_since = 0.0
        self._inline_count = 0
        self._watch = threading.Condition(self._lock)
        self._watch_parked = False
        self._requests: Iterator[StreamItem | Reply | Answered] = iter(())
        #: Standard input, read only by `line_requests` and `json_requests` (its end or its read error ends serving).
        self.stdin = InputLines(DescriptorLines(0))

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
        self._requests = requests
        watchdog = threading.Thread(target=self._watch_reader, name="stringsh-daemon-watch", daemon=True)
        watchdog.start()
        self._start(self._follow, True)
        self.drain()
        watchdog.join()

    def _follow(self, has_turn: bool = False) -> None:
        """Read requests and run each one read (the reader keeps the turn to read meanwhile, unless the watchdog
        hands it on); without the turn, wait for it. End when input does, or when enough other threads wait."""
        requests = self._requests
        while True:
            if not has_turn and not self._await_turn():
                return
            has_turn = True
            try:
                item = next(requests, None)
            except BaseException:  # a reader's bug ends the input too: the other threads must not wait for it
                self._end_of_input()
                raise
            if item is None:
                self._end_of_input()
                return
            if isinstance(item, Reply):
                self.send(item)
                continue
            if isinstance(item, Answered):
                self.send(item.reply, item.json_id)
                continue
            # admitted while still the reader, so requests of one topic keep their order
            json_id = item.json_id if isinstance(item, JsonItem) else None
            job = self.admit(item.text, item.topic, item.request, json_id)
            if job is None:  # answered, or queued behind its topic
                continue
            with self._lock:
                self._inline, self._inline_since = job, time.monotonic()
                self._inline_count += 1
                if self._watch_parked:
                    self._watch_parked = False
                    self._watch.notify()
            with self.dispatcher.on_wait(lambda job=job: self._hand_on_from(job)):
                self._run_topic(job)
            with self._lock:
                has_turn = self._inline is job  # else the turn was handed on meanwhile
                if has_turn:
                    self._inline = None
                elif self._idle >= SPARE_READERS:
                    return

    def _end_of_input(self) -> None:
        with self._lock:
            self._eof = True
            self._turn.notify_all()
            self._watch.notify_all()

    def _await_turn(self) -> bool:
        """Wait until the turn to read is handed to this thread (True) or input has ended (False)."""
        with self._lock:
            self._idle += 1
            while not self._free and not self._eof:
                self._turn.wait()
            self._idle -= 1
            if self._eof:
                return False
            self._free = False
            return True

    def _watch_reader(self) -> None:
        """The watchdog: when the reading thread has run one request for HAND_ON_SECONDS, hand the turn to read to
        an idle thread (or a new one), so a request of another topic is read while that one runs. It wakes at
        most every HAND_ON_SECONDS while requests come, and sleeps until the next one once they stop."""
        seen = -1
        with self._lock:
            while not self._eof:
                job = self._inline
                if job is None:
                    if self._inline_count == seen:  # nothing started since the last look: sleep until something is
                        self._watch_parked = True
                        self._watch.wait()
                    else:
                        seen = self._inline_count
                        self._watch.wait(HAND_ON_SECONDS)
                    continue
                seen = self._inline_count
                left = self._inline_since + HAND_ON_SECONDS - time.monotonic()
                if left <= 0 and self._hand_on():
                    continue
                self._watch.wait(left if left > 0 else HAND_ON_SECONDS)

    def _hand_on_from(self, job: Job) -> None:
        """The reader's request is about to wait for other writers (groupcommit.py): the turn to read goes to
        another thread now, not after HAND_ON_SECONDS, so the next writer's request is read, and joins a batch,
        while this one waits."""
        with self._lock:
            if self._inline is job:
                self._hand_on()

    def _hand_on(self) -> bool:
        """(Holding the lock.) Take the turn to read from the thread running its request and give it to an idle
        thread, or to a new one; False when the thread cap is reached (the reader keeps it)."""
        if self._idle:
            self._free = True
            self._turn.notify()
        else:
            self._threads = [thread for thread in self._threads if thread.is_alive()]
            if len(self._threads) >= MAX_THREADS:
                return False
            # registered and started under the lock: drain() never sees a moment with no reader
            reader = threading.Thread(target=self._follow, args=(True,), daemon=True)
            self._threads.append(reader)
            reader.start()
        self._inline = None
        return True

    def line_requests(self) -> Iterator[StreamItem | Reply]:
        for item in read_requests(self.stdin, envelopes=True):
            if item.error:
                yield format_error_item(item.text, item.error, item.topic or "main")
            else:
                yield item

    def json_requests(self) -> Iterator[StreamItem | Answered]:
        for raw in self.stdin:
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
    return daemon.stdin.status(0)
