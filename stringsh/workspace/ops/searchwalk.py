"""A search's walk for code above the engine (`/symbols`): the files under some paths, offered one at a time to a
caller that decides what to read, on the engine's confined no-follow walk (ops/walk.py, /grep's: secrets,
`.stringsh/`, `.git/`, `.gitignore` and temp files never offered, symlinks never followed, the walk limits kept).

The grep permission is checked when the walk is asked for, and the whole search is one audit record (op `grep`,
its paths, the caller's command text). A file is read only through `SearchFile.read`, within the read limit and
refusing hard links unless the policy allows them; the traversal counts come back as every walking operation's.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from types import TracebackType
from typing import TYPE_CHECKING

from stringsh.workspace.ops.guard import require
from stringsh.workspace.ops.walk import Found, Start, Traversal, WalkStats, open_found, start_at, walk

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace

#: A file's identity and stat, (device, inode, size, mtime in ns): what a cache of what was learnt of it is keyed by.
Identity = tuple[int, int, int, int]


class SearchFile:
    """One regular file the walk met: `rel`, its root-relative path, and `key`, its identity (None when the walk
    has no stat of it). Valid until the walk goes on."""

    __slots__ = ("_found", "_walk", "key", "rel")

    def __init__(self, found: Found, owner: SearchWalk) -> None:
        st = found.st
        self.rel = found.rel
        self.key: Identity | None = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns) if st is not None else None
        self._found = found
        self._walk = owner

    def read(self) -> bytes | None:
        """The file's bytes within the read limit, None when it is bigger, a hard link the policy does not allow,
        or gone or changed since the walk met it (an I/O error is counted in the traversal)."""
        policy = self._walk.ws.policy
        limit = policy.limits.max_read_bytes
        stats = self._walk.stats
        opened = open_found(self._found)
        if opened is None:
            stats.skipped_io_errors += 1
            return None
        fd, st = opened
        try:
            if st.st_size > limit or (st.st_nlink > 1 and not policy.secrets.allow_hardlinks):
                return None
            raw = os.read(fd, st.st_size + 1)
            while len(raw) <= limit and (more := os.read(fd, 1 << 20)):  # a file that grew since the stat
                raw += more
        except OSError:
            stats.skipped_io_errors += 1
            return None
        finally:
            os.close(fd)
        return raw if len(raw) <= limit else None


class SearchedPath:
    """One of the searched paths: `rel`, as the confiner resolved it, `one_file` when it names a file; iterating it
    walks it (once)."""

    __slots__ = ("_start", "_walk", "one_file", "rel")

    def __init__(self, start: Start, owner: SearchWalk) -> None:
        self.rel = start.rel
        self.one_file = start.file is not None
        self._start: Start | None = start
        self._walk = owner

    def __iter__(self) -> Iterator[SearchFile]:
        start, self._start = self._start, None
        if start is None:
            raise RuntimeError("a searched path is walked once")
        owner = self._walk
        for found in walk(owner.ws, start, owner.stats):  # walk owns start.fd from here
            yield SearchFile(found, owner)

    def close(self) -> None:
        """Release the path's folder when it was never walked."""
        start, self._start = self._start, None
        if start is not None:
            os.close(start.fd)


class SearchWalk:
    """A search's walk (`Workspace.search_walk`): the grep permission is checked on creation, so a caller may check
    its own input after it and keep NOT_PERMITTED first; entering it opens the search's one audit record."""

    def __init__(self, ws: Workspace, paths: Sequence[str], command: str, topic: str | None) -> None:
        require(ws.policy, ws.policy.permissions.grep, "grep")
        self.ws = ws
        self.paths = list(paths)
        self.command = command
        self.topic = topic
        self.stats = WalkStats()
        self._stack: ExitStack | None = None
        self._opened: list[SearchedPath] = []

    def __enter__(self) -> SearchWalk:
        stack = ExitStack()
        stack.enter_context(self.ws.audited("grep", self.paths, topic=self.topic, command=self.command))
        stack.callback(self._close_paths)
        self._stack = stack
        self.stats = WalkStats()  # the walk's time bound starts with the search
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> bool | None:
        stack, self._stack = self._stack, None
        assert stack is not None
        return stack.__exit__(kind, exc, tb)

    def files(self, path: str) -> SearchedPath:
        """The folder (or file) `path`, resolved through the confiner (NOT_FOUND, INVALID_PATH, SECRET_DENIED,
        INVALID_TARGET refused here); iterate it for its files, depth first, names sorted."""
        if self._stack is None:
            raise RuntimeError("Workspace.search_walk is used as a context manager")
        searched = SearchedPath(start_at(self.ws, path), self)
        self._opened.append(searched)
        return searched

    def stop(self, reason: str = "results") -> None:
        """Say why the caller stopped early (the traversal's scan_limit_reason): `results` when it has enough."""
        self.stats.limit_reason = reason

    def traversal(self) -> Traversal:
        """The traversal counts so far (every path walked), as every walking operation returns them."""
        return self.stats.snapshot()

    def _close_paths(self) -> None:
        for searched in self._opened:
            searched.close()
        self._opened.clear()
