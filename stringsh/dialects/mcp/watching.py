"""Resource subscriptions: which client connection listens to which file or folder (anything inside it,
foldering.py), on one file watcher for all of them (the one open documents use), with one
`notifications/resources/updated` per burst of changes.

A burst (an editor's write, truncate and rename; a loop of appends) is folded into one notification sent once
the file has been quiet for `DEBOUNCE` seconds, or `MAX_DELAY` after its first change when it never goes quiet.
A file stops being watched when its last subscriber leaves (unsubscribes, or its connection ends).

Locks: `_lock` guards the registry and the due times; the observer thread takes it (through `_changed`) while
holding watchdog's own lock, so no watcher method that reaches the observer (`WatchHandle.close`) is ever called
while holding it.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import anyio.from_thread

if TYPE_CHECKING:
    from anyio.lowlevel import EventLoopToken

    from stringsh.render.watch import Watcher, WatchHandle

log = logging.getLogger("stringsh.mcp")

#: Seconds a file must stay quiet before its subscribers hear of it.
DEBOUNCE = 0.1
#: Seconds after a burst's first change at which it is reported even if changes go on.
MAX_DELAY = 1.0
#: Seconds a subscribe waits for the watch to be in place, so a change right after it is not missed.
SETUP_WAIT = 5.0


class Subscriber:
    """One client connection, reached from the notifying thread on the event loop that serves it."""

    def __init__(self, send: Callable[[str], Awaitable[None]], token: EventLoopToken) -> None:
        self.send = send
        self.token = token

    def deliver(self, uri: str) -> bool:
        """Send `uri`'s update; False when the connection's event loop is gone (the subscriber is dropped)."""
        try:
            anyio.from_thread.run(self.send, uri, token=self.token)
        except RuntimeError:
            return False
        except Exception as exc:  # a notification is advisory: a failure must not stop the others
            log.warning("stringsh mcp: resource update for %s not sent (%s)", uri, exc)
        return True


@dataclass
class _Watched:
    """One watched file: its watch and who listens, each under the URIs it subscribed with."""

    handle: WatchHandle
    subscribers: dict[Subscriber, set[str]] = field(default_factory=dict)


class Subscriptions:
    """Every subscription of one server, on the watcher `watcher()` returns (asked for on first use)."""

    def __init__(self, watcher: Callable[[], Watcher]) -> None:
        self._watcher = watcher
        self._lock = threading.Condition()
        self._files: dict[str, _Watched] = {}  # real path -> watch and subscribers
        self._uris: dict[Subscriber, dict[str, str]] = {}  # subscriber -> uri -> real path
        self._due: dict[str, tuple[float, float]] = {}  # real path -> (first, last) change of its burst
        self._thread: threading.Thread | None = None

    def subscribe(self, subscriber: Subscriber, uri: str, path: str, folder: bool = False) -> None:
        """Notify `subscriber` with `uri` whenever the file at `path` (absolute) changes, or with `folder`, anything
        inside that folder (foldering.py); returns once the watch is in place (or could not be: then nothing is
        reported, as for any lost event)."""
        real = os.path.realpath(path)
        stale: WatchHandle | None = None
        with self._lock:
            old = self._uris.setdefault(subscriber, {}).get(uri)
            if old is not None and old != real:  # the same URI now leads elsewhere (a link was changed)
                stale = self._forget(subscriber, uri)
            watched = self._files.get(real)
            if watched is None:
                watched = _Watched(self._watch(real, folder))
                self._files[real] = watched
            watched.subscribers.setdefault(subscriber, set()).add(uri)
            self._uris.setdefault(subscriber, {})[uri] = real
            handle = watched.handle
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="stringsh-resources", daemon=True)
                self._thread.start()
        if stale is not None:
            stale.close()
        handle.ready.wait(SETUP_WAIT)

    def _watch(self, real: str, folder: bool) -> WatchHandle:
        if folder:
            from stringsh.dialects.mcp.foldering import own_files

            return self._watcher().watch_folder(real, lambda: self._changed(real), ignore=own_files)
        return self._watcher().watch(real, on_change=lambda: self._changed(real))

    def unsubscribe(self, subscriber: Subscriber, uri: str) -> None:
        """Stop notifying `subscriber` about `uri` (nothing happens when it was not subscribed)."""
        with self._lock:
            closing = self._forget(subscriber, uri)
            self._lock.notify_all()
        if closing is not None:
            closing.close()

    def drop(self, subscriber: Subscriber) -> None:
        """Forget every subscription of a connection that ended."""
        closing: list[WatchHandle] = []
        with self._lock:
            for uri in list(self._uris.get(subscriber, {})):
                handle = self._forget(subscriber, uri)
                if handle is not None:
                    closing.append(handle)
            self._uris.pop(subscriber, None)
            self._lock.notify_all()
        for handle in closing:
            handle.close()

    def watched(self) -> int:
        """How many files are watched (for the server's own checks)."""
        with self._lock:
            return len(self._files)

    def _forget(self, subscriber: Subscriber, uri: str) -> WatchHandle | None:
        """Under the lock: drop one subscription; the file's handle when nobody listens to it any more."""
        real = self._uris.get(subscriber, {}).pop(uri, None)
        watched = self._files.get(real) if real is not None else None
        if watched is None:
            return None
        uris = watched.subscribers.get(subscriber, set())
        uris.discard(uri)
        if not uris:
            watched.subscribers.pop(subscriber, None)
        if watched.subscribers:
            return None
        del self._files[real]  # type: ignore[arg-type]
        self._due.pop(real, None)  # type: ignore[arg-type]
        return watched.handle

    def _changed(self, real: str) -> None:
        """On the observer thread: note the change; the notifying thread reports it once the burst is over."""
        now = time.monotonic()
        with self._lock:
            if real not in self._files:
                return
            first = self._due.get(real, (now, now))[0]
            self._due[real] = (first, now)
            self._lock.notify_all()

    def _run(self) -> None:
        """The notifying thread: sends each quiet burst's notifications; ends when nothing is watched."""
        while True:
            with self._lock:
                sends = self._wait_for_due()
                if sends is None:
                    self._thread = None
                    return
            gone = [subscriber for subscriber, uri in sends if not subscriber.deliver(uri)]
            for subscriber in gone:
                self.drop(subscriber)

    def _wait_for_due(self) -> list[tuple[Subscriber, str]] | None:
        """Under the lock: wait for bursts that are over; their (subscriber, uri) pairs, or None to stop."""
        while True:
            if not self._files:
                return None
            now = time.monotonic()
            over = [real for real, (first, last) in self._due.items()
                    if now - last >= DEBOUNCE or now - first >= MAX_DELAY]
            if over:
                sends = []
                for real in over:
                    del self._due[real]
                    for subscriber, uris in self._files[real].subscribers.items():
                        sends.extend((subscriber, uri) for uri in sorted(uris))
                return sends
            waits = [min(last + DEBOUNCE, first + MAX_DELAY) - now for first, last in self._due.values()]
            self._lock.wait(min(waits) if waits else None)
