"""The audit writer: records appended on their own thread after a reply was sent, and what is said on stderr when
records cannot be written (a full or read-only state folder)."""

from __future__ import annotations

import atexit
import sys
import threading
from typing import TYPE_CHECKING

from stringsh.errors import StringError

if TYPE_CHECKING:
    import queue

    from stringsh.workspace.audit import AuditLog


def loggable(text: str) -> str:
    """`text` as a UTF-8 log line can hold it: a lone surrogate (a file name that is not UTF-8) as `\\udcff`."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


class AuditWriter:
    """One thread appending the records handed to it, in order; a put costs the request thread about a
    microsecond. A handed event is set once everything before it is written (flush)."""

    def __init__(self, log: AuditLog) -> None:
        import queue  # only a front end that answers before it logs (the daemon, the servers) has a writer

        self.log = log
        self.queue: queue.SimpleQueue[list[dict[str, object]] | threading.Event | None] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._run, name="stringsh-audit", daemon=True)
        self.thread.start()
        atexit.register(self.close)  # a front end that exits without closing its workspace still writes them all

    def put(self, records: list[dict[str, object]]) -> None:
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
        while (item := self.queue.get()) is not None:
            if isinstance(item, threading.Event):
                item.set()
                continue
            for record in item:
                try:
                    self.log.append(record)
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
