"""Marks open documents stale when something outside changes them, with watchdog.

One observer per `Watcher` (each dispatcher owns one, in its document state, and stops it on close); one
non-recursive watch per folder that holds an open document, shared by reference count, with an explicit event
filter (the default mask floods on busy trees) and moves matched by destination (editors and our own atomic writes
replace files by renaming a temp file over them). A flag is only a hint: the commands confirm staleness by
comparing content hashes, so a lost or extra event never misleads a user.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from watchdog.events import FileSystemEvent

SETUP_DELAY = 0.05


class WatchHandle:
    """The stale flag of one open document; `changed` is set from the observer thread."""

    def __init__(self, path: str, owner: Watcher, *, on_change: Callable[[], None] | None = None,
                 folder: bool = False, ignore: Callable[[str], bool] | None = None) -> None:
        self.path = path
        self.owner = owner
        self.changed = threading.Event()
        self.closed = False
        self.scheduled = False  # counted in its folder's watch
        #: Called on the observer thread after `changed` is set; it must be quick and take no lock held around an
        #: observer call (an MCP subscription queues its notification).
        self.on_change = on_change
        #: Set once the background setup is over (scheduled or given up): a caller may wait before relying on events.
        self.ready = threading.Event()
        #: A folder's handle (`Watcher.watch_folder`): set by any change below it, except paths `ignore` says.
        self.folder = folder
        self.ignore = ignore

    def __repr__(self) -> str:
        return f"WatchHandle(path={self.path!r}, closed={self.closed!r}, folder={self.folder!r})"

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.owner.release(self)


class Watcher:
    """Two locks. `_handles_lock` guards the handle registry and is the only lock `notify` takes (watchdog calls it
    while holding its own lock), and no observer method is ever called while holding it; `_dirs_lock` guards the
    observer and folder watches. So watchdog's lock and ours are never taken in opposite orders."""

    def __init__(self) -> None:
        self._handles_lock = threading.Lock()
        self._dirs_lock = threading.Lock()
        self._observer: Any = None
        self._dirs: dict[str, tuple[Any, int]] = {}  # folder -> (watch, refcount)
        self._trees: dict[str, tuple[Any, int]] = {}  # folder watched recursively -> (watch, refcount)
        self._handles: dict[str, list[WatchHandle]] = {}  # file path -> handles
        self._folders: dict[str, list[WatchHandle]] = {}  # folder path -> handles of everything below it
        self._stopped = False  # set by `stop`: a setup still sleeping must not start a new observer

    def watch(self, path: str, on_change: Callable[[], None] | None = None) -> WatchHandle:
        """Start watching a file (absolute path); setup runs in the background so an open never waits for it."""
        handle = WatchHandle(os.path.realpath(path), self, on_change=on_change)
        with self._handles_lock:
            self._handles.setdefault(handle.path, []).append(handle)
        threading.Thread(target=self._schedule, args=(handle,), name="stringsh-watch", daemon=True).start()
        return handle

    def watch_folder(self, path: str, on_change: Callable[[], None],
                     ignore: Callable[[str], bool] | None = None) -> WatchHandle:
        """Start watching everything below a folder (absolute path; one recursive watch per folder, shared):
        `on_change` for each change of a file or folder inside it whose path `ignore` does not name."""
        handle = WatchHandle(os.path.realpath(path), self, on_change=on_change, folder=True, ignore=ignore)
        with self._handles_lock:
            self._folders.setdefault(handle.path, []).append(handle)
        threading.Thread(target=self._schedule, args=(handle,), name="stringsh-watch", daemon=True).start()
        return handle

    def _schedule(self, handle: WatchHandle) -> None:
        try:
            self._schedule_now(handle)
        finally:
            handle.ready.set()

    def _schedule_now(self, handle: WatchHandle) -> None:
        # Let the command that opened the file finish its reply first: importing watchdog and starting the observer
        # would otherwise compete with it for the GIL. A change in between is still caught by `is_stale`'s stat.
        time.sleep(SETUP_DELAY)
        folder, watches = self._watches(handle)
        with self._dirs_lock:
            if handle.closed or self._stopped:
                return
            try:
                observer = self._ensure_observer()
                watch, count = watches.get(folder, (None, 0))
                if watch is None:
                    watch = observer.schedule(_Handler(self), folder, recursive=handle.folder,
                                              event_filter=_event_filter(folders=handle.folder))
                watches[folder] = (watch, count + 1)
                handle.scheduled = True
            except Exception:
                return  # no inotify, too many watches, folder gone: the hash comparison still decides staleness

    def _watches(self, handle: WatchHandle) -> tuple[str, dict[str, tuple[Any, int]]]:
        """The folder a handle's watch is on and the registry counting it: its file's folder, or its own folder
        watched recursively."""
        return (handle.path, self._trees) if handle.folder else (os.path.dirname(handle.path), self._dirs)

    def _ensure_observer(self) -> Any:
        if self._observer is None:
            from watchdog.observers import Observer

            observer = Observer()
            observer.daemon = True
            observer.start()
            self._observer = observer
        return self._observer

    def release(self, handle: WatchHandle) -> None:
        registry = self._folders if handle.folder else self._handles
        with self._handles_lock:
            handles = registry.get(handle.path, [])
            if handle in handles:
                handles.remove(handle)
            if not handles:
                registry.pop(handle.path, None)
        folder, watches = self._watches(handle)
        with self._dirs_lock:
            if not handle.scheduled:
                return
            handle.scheduled = False
            watch, count = watches.get(folder, (None, 0))
            if watch is None:
                return
            if count <= 1:
                del watches[folder]
                if self._observer is not None:
                    with contextlib.suppress(Exception):
                        self._observer.unschedule(watch)
            else:
                watches[folder] = (watch, count - 1)

    def notify(self, *paths: str) -> None:
        """Called on watchdog's thread: set the flags of the handles of these paths, taking no other lock."""
        with self._handles_lock:
            hit = [handle for path in paths for handle in self._handles.get(path, ())]
            for folder, handles in self._folders.items():
                for handle in handles:
                    if any(path.startswith(folder + "/") and not (handle.ignore and handle.ignore(path))
                           for path in paths):
                        hit.append(handle)
        for handle in hit:
            handle.changed.set()
            if handle.on_change is not None:
                with contextlib.suppress(Exception):  # a listener's failure must not stop the observer
                    handle.on_change()

    def stop(self) -> None:
        """Stop the observer thread for good (the owner is closing); later handles only rely on `is_stale`."""
        with self._dirs_lock:
            self._stopped = True
            observer, self._observer = self._observer, None
            self._dirs.clear()
            self._trees.clear()
            with self._handles_lock:
                handles = [h for hs in [*self._handles.values(), *self._folders.values()] for h in hs]
            for handle in handles:
                handle.scheduled = False
        if observer is not None:
            observer.stop()
            observer.join(timeout=5)


def _event_filter(folders: bool = False) -> list[type]:
    """File changes; with `folders`, a folder made, removed or moved too (a recursive watch's changes inside)."""
    from watchdog.events import (
        DirCreatedEvent,
        DirDeletedEvent,
        DirMovedEvent,
        FileClosedEvent,
        FileCreatedEvent,
        FileDeletedEvent,
        FileModifiedEvent,
        FileMovedEvent,
    )

    kinds: list[type] = [FileModifiedEvent, FileClosedEvent, FileCreatedEvent, FileDeletedEvent, FileMovedEvent]
    return [*kinds, DirCreatedEvent, DirDeletedEvent, DirMovedEvent] if folders else kinds


class _Handler:
    """A minimal watchdog handler: every event names the paths it touched."""

    def __init__(self, watcher: Watcher) -> None:
        self.watcher = watcher

    def dispatch(self, event: FileSystemEvent) -> None:
        paths = [os.fsdecode(event.src_path)]
        dest = event.dest_path  # "" except on moves (watchdog >= 4 gives every event one)
        if dest:
            paths.append(os.fsdecode(dest))
        self.watcher.notify(*paths)

