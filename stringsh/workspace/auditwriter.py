"""The audit writer: records appended on their own thread after a reply was sent, and what is said on stderr when
records cannot be written (a full or read-only state folder)."""

from __future__ import annotations

import atexit
import sys
import threading
import time
from typing import TYPE_CHECKING

from stringsh.errors import StringError

if TYPE_CHECKING:
    import queue
    from collections.abc import Callable

    from stringsh.workspace.audit import AuditLog
    from stringsh.workspace.context import Ended

#: While requests stream in, the writer appends at most once per this long, all that queued meanwhile at once: an
#: append per request cost each request more than its own pipeline (its lock, reads and writes of the log, and the
#: interpreter lock taken from the next request, which a client sends while the last record is still being written).
#: A record that comes after a quiet spell is appended at once.
GATHER_SECONDS = 0.002


def loggable(text: str) -> str:
    """`text` as a UTF-8 log line can hold it: a lone surrogate (a file name that is not UTF-8) as `\\udcff`."""
    if text.isascii():  # every request's op, most paths: nothing to check (no encoded copy)
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


class AuditWriter:
    """One thread making and appending the records of the requests handed to it, in order (gathered while requests
    stream in: GATHER_SECONDS); a put costs the request thread about a microsecond. A handed event is set once
    everything before it is written (flush)."""

    def __init__(self, log: AuditLog, record: Callable[[Ended], dict[str, object]]) -> None:
        """`record` makes a handed request into its record, here: not in the request's thread, before its reply."""
        import queue  # only a front end that answers before it logs (the daemon, the servers) has a writer

        self.log = log
        self.record = record
        self.queue: queue.SimpleQueue[list[Ended] | threading.Event | None] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._run, name="stringsh-audit", daemon=True)
        self.thread.start()
        atexit.register(self.close)  # a front end that exits without closing its workspace still writes them all

    def put(self, records: list[Ended]) -> None:
        self.queue.put(records)

    def flush(self) -> None:
        done = threading.Event()
        self.queue.put(done)
        done.wait()

    def close(self) -> None:
        atexit.unregister(self.close)
        if self.thread.is_alive():
            self.queue.put(None)
            self.thread.join()

    def _run(self) -> None:
        """Write what is handed on, in order, all that queued in one append (one lock and one write for them all);
        an event is set once all before it are written."""
        written = float("-inf")
        while True:
            items = [self.queue.get()]
            wait = written + GATHER_SECONDS - time.monotonic()
            if wait > 0:  # the last append was just now: requests are streaming in, gather theirs
                time.sleep(wait)
            while not self.queue.empty():  # the one consumer: what is there now stays there to take
                items.append(self.queue.get())
            records: list[Ended] = []
            for item in items:
                if isinstance(item, list):
                    records += item
                    continue
                self._write(records)
                records = []
                if item is None:
                    return
                item.set()
            self._write(records)
            written = time.monotonic()

    def _write(self, records: list[Ended]) -> None:
        if not records:
            return
        try:
            self.log.append_all([self.record(ended) for ended in records])
        except (OSError, StringError) as exc:
            audit_failed(exc)
        else:
            audit_failed(None)


_AUDIT_SILENT: list[str] = []  # the reason already said on stderr, while the audit log stays unwritable


def audit_failed(exc: BaseException | None) -> None:
    """An audit record could not be written (`exc`), or one was (None): the person is told once on stderr when
    records start being lost (a full or read-only state folder), and once when they are written again."""
    if exc is None:
        if _AUDIT_SILENT:
            _AUDIT_SILENT.clear()
            print("stringsh: the audit log is written again", file=sys.stderr)
        return
    if not _AUDIT_SILENT:
        reason = exc.message if isinstance(exc, StringError) else (exc.strerror or str(exc))
        _AUDIT_SILENT.append(reason)
        print(f"stringsh: the audit log could not record a request ({reason}); it will not until that clears",
              file=sys.stderr)
