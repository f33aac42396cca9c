"""`stringsh daemon`: requests on stdin, framed replies on stdout, one worker per topic.

Each topic runs one command at a time and queues the rest (bounded); topics run in parallel.
"""

from __future__ import annotations

import json
import queue
import re
import sys
import threading
import time
from dataclasses import dataclass
from typing import BinaryIO

from stringsh.dispatcher import Dispatcher
from stringsh.errors import StringError
from stringsh.output import ReplyWriter
from stringsh.protocol.framing import envelope, json_reply
from stringsh.protocol.request import parse_request
from stringsh.protocol.response import Reply, format_error_item, format_reply
from stringsh.protocol.stream import StreamItem, read_requests
from stringsh.protocol.topics import parse_topic

REQUEST_ID_TEXT = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")
QUEUE_SIZE = 16
QUEUE_WAIT_SECONDS = 60.0


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
        self.queues: dict[str, queue.Queue[Job | None]] = {}
        self.workers: list[threading.Thread] = []

    def send(self, reply: Reply) -> None:
        if self.json_mode:
            self.writer.write(json_reply(reply.id, reply.ok, reply.code, reply.topic, reply.text))
        else:
            self.writer.write(envelope(reply.topic, reply.text))

    def submit(self, text: str, topic: str | None) -> None:
        """Queue a request for its topic, or answer at once when the topic or queue refuses it."""
        try:
            request = parse_request(text)
        except StringError as exc:
            self.send(format_error_item(text, (exc.code, exc.text), topic or "main"))
            return
        try:
            name, _ = parse_topic(topic)
        except StringError as exc:
            self.send(format_reply(request.header, request.id, error=(exc.code, exc.text), topic=topic or ""))
            return
        jobs = self._queue(name)
        try:
            jobs.put_nowait(Job(text, request.id, request.header, time.monotonic()))
        except queue.Full:
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

    def _queue(self, topic: str) -> queue.Queue[Job | None]:
        if topic not in self.queues:
            self.queues[topic] = queue.Queue(maxsize=self.queue_size)
            worker = threading.Thread(target=self._work, args=(topic,), name=f"topic-{topic}", daemon=True)
            worker.start()
            self.workers.append(worker)
        return self.queues[topic]

    def _work(self, topic: str) -> None:
        jobs = self.queues[topic]
        while (job := jobs.get()) is not None:
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
                continue
            self.send(self.dispatcher.execute(job.text, topic))

    def serve_lines(self) -> None:
        stdin = sys.stdin.buffer
        for item in read_requests(stdin.readline, envelopes=True):
            self._accept(item)

    def serve_json(self) -> None:
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
                self.send(Reply(text, False, "INVALID_PAYLOAD", None, "main"))
                continue
            cmd = message["cmd"]
            if request_id is not None and not cmd.lstrip().startswith("["):
                cmd = f"[{request_id}] {cmd.lstrip()}"
            self.submit(cmd, topic)

    def _accept(self, item: StreamItem) -> None:
        if item.error:
            self.send(format_error_item(item.text, item.error, item.topic or "main"))
        else:
            self.submit(item.text, item.topic)

    def drain(self) -> None:
        """At end of input: finish every queued request, then stop the workers."""
        for jobs in self.queues.values():
            jobs.put(None)
        for worker in self.workers:
            worker.join()


def run_daemon(dispatcher: Dispatcher, *, json_mode: bool = False) -> int:
    daemon = Daemon(dispatcher, json_mode=json_mode)
    try:
        if json_mode:
            daemon.serve_json()
        else:
            daemon.serve_lines()
    except KeyboardInterrupt:
        pass
    finally:
        daemon.drain()
    return 0
