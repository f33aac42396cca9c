"""The confined walk glob and grep share: directory descriptors opened with O_NOFOLLOW, symlinks never followed
(as ripgrep and `git grep`: a folder link is not entered, a file link not read), secrets, `.stringsh/`, `.git/` and
`.gitignore`d paths never yielded (the rules: ops/gitignore.py), every skip counted.

It is the Python engine's walk, and the counted walk of `--stats`; without `--stats` the rg engine lets ripgrep walk
(ops/rgwalk.py), with the same rules.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterator
from operator import attrgetter, methodcaller
from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError
from stringsh.workspace.ops.gitignore import GITIGNORE, Ignore, gitignore_at, ignored
from stringsh.workspace.paths import DIR_FLAGS, STATE_DIR, TEMP_PREFIX

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace

#: Never walked: version-control internals (objects, packs, the index) are not workspace text.
SKIPPED_DIRS = frozenset({".git"})
BY_NAME = attrgetter("name")
IS_FOLDER = methodcaller("is_dir", follow_symlinks=False)
FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


#: Seconds a walk (and the searching it feeds) may take before it stops with scan_limit_reason "time": a tree too
#: big to search at once answers with what was found so far instead of holding the topic for minutes.
MAX_WALK_SECONDS = 60.0
#: Entries between two looks at the clock.
CLOCK_EVERY = 256


class WalkStats:
    """The traversal diagnostics (docs/file-operations.md), counted while walking (mutable; `snapshot` freezes them)."""

    __slots__ = ("counted", "deadline", "limit_reason", "scanned_entries", "scanned_files", "skipped_io_errors",
                 "skipped_symlinks", "skipped_walk_errors", "started")

    def __init__(self, seconds: float = MAX_WALK_SECONDS, *, counted: bool = True) -> None:
        self.scanned_entries = 0
        self.scanned_files = 0
        self.skipped_walk_errors = 0
        self.skipped_io_errors = 0
        self.skipped_symlinks = 0
        #: False without --stats: the counters are not reported (the rg engine cannot give them), and the policy's
        #: max_walk_entries / max_walk_files do not stop the walk (time and max_results still do).
        self.counted = counted
        self.limit_reason: str | None = None  # "entries", "files", "time" or "results"
        self.started = time.monotonic()
        self.deadline = self.started + seconds

    def snapshot(self) -> Traversal:
        if not self.counted:  # what was counted on the way depends on the engine: none of it is reported
            return Traversal(0, 0, 0, 0, 0, self.limit_reason is not None, self.limit_reason,
                             int((time.monotonic() - self.started) * 1000), False)
        return Traversal(self.scanned_files, self.scanned_entries, self.skipped_walk_errors, self.skipped_io_errors,
                         self.skipped_symlinks, self.limit_reason is not None, self.limit_reason,
                         int((time.monotonic() - self.started) * 1000), self.counted)


class Traversal(NamedTuple):
    """The traversal fields, as every walking operation returns them."""

    scanned_files: int
    scanned_entries: int
    skipped_walk_errors: int
    skipped_io_errors: int
    skipped_symlinks: int  # symlinks met and not followed
    scan_limit_reached: bool
    scan_limit_reason: str | None
    elapsed_ms: int
    counted: bool = True  # False: the counters above are not reported (searched without --stats)


class Found(NamedTuple):
    """A regular file met by the walk: `name` inside the open folder `dir_fd` (valid until the walk goes on), its
    root-relative `rel` and `st`, its stat."""

    rel: str
    dir_fd: int
    name: str
    st: os.stat_result | None  # None from walk(stat_files=False) for a plain file


class Start(NamedTuple):
    """Where a walk begins: a folder (`fd` owned by the walk) or one file."""

    rel: str
    fd: int
    file: Found | None = None


def start_at(ws: Workspace, path: str) -> Start:
    """Resolve the folder (or file) to search, through the Confiner; NOT_FOUND / INVALID_PATH / SECRET_DENIED."""
    res = ws.confiner.resolve(path)
    try:
        if res.st is not None and not stat.S_ISDIR(res.st.st_mode):
            if not stat.S_ISREG(res.st.st_mode):
                raise StringError("INVALID_TARGET", f"Not a file or folder: {res.rel}")
            return Start(res.rel, os.dup(res.parent_fd), Found(res.rel, -1, res.name, res.st))
        fd = os.dup(res.parent_fd) if res.name == "" else os.open(res.name, DIR_FLAGS, dir_fd=res.parent_fd)
        return Start(res.rel, fd)
    finally:
        res.close()



def walk(ws: Workspace, start: Start, stats: WalkStats, *, stat_files: bool = True) -> Iterator[Found]:
    """Regular files under `start`, depth first, names sorted; closes `start.fd`. Stops at the policy's
    max_walk_entries / max_walk_files, or past the stats' deadline (stats.limit_reason). Without `stat_files` a
    plain file's `st` is None (the caller stats the few it wants, or reads the file and fstats it): an lstat per
    file is most of a walk's time."""
    limits = ws.policy.limits
    denied_leaf = ws.confiner.matcher.denied_leaf
    max_entries, max_files = limits.max_walk_entries, limits.max_walk_files
    if not stats.counted:
        max_entries = max_files = 1 << 62
    if start.file is not None:
        try:
            stats.scanned_entries += 1
            stats.scanned_files += 1
            yield start.file._replace(dir_fd=start.fd)
        finally:
            os.close(start.fd)
        return
    base = "" if start.rel == "." else start.rel + "/"
    # Under another root (`docs:`), its rules see the path inside it: the secret globs and `.stringsh/` are the
    # root's own, so `docs:/keys/x` is matched as `keys/x` (roots.py).
    root_prefix = ws.confiner.route(start.rel)[1] if ":" in start.rel else ""
    # start_at resolved the start folder through the Confiner, which refuses a denied one
    stack: list[tuple[int, str, list[tuple[int, Ignore]]]] = [(start.fd, base, [])]
    try:
        while stack:
            fd, prefix, chain = stack.pop()
            try:
                try:
                    with os.scandir(fd) as listing:
                        entries = sorted(listing, key=BY_NAME)
                except OSError:
                    stats.skipped_io_errors += 1
                    continue
                if any(entry.name == GITIGNORE for entry in entries):
                    spec = gitignore_at(fd)
                    if spec is not None:
                        chain = [*chain, (len(prefix), spec)]
                folders: list[tuple[str, str]] = []
                for entry in entries:
                    name = entry.name
                    rel = prefix + name
                    if name.startswith(TEMP_PREFIX):
                        continue
                    inner = rel[len(root_prefix):].lstrip("/") if root_prefix else rel
                    if inner == STATE_DIR or denied_leaf(inner):  # the folder was checked before it was entered
                        continue
                    if stats.scanned_entries >= max_entries:
                        stats.limit_reason = "entries"
                        return
                    stats.scanned_entries += 1
                    if not stats.scanned_entries % CLOCK_EVERY and time.monotonic() > stats.deadline:
                        stats.limit_reason = "time"
                        return
                    try:
                        is_file = entry.is_file(follow_symlinks=False)
                        is_link = not is_file and entry.is_symlink()
                        is_dir = not (is_file or is_link) and entry.is_dir(follow_symlinks=False)
                    except OSError:
                        stats.skipped_io_errors += 1
                        continue
                    if is_dir and name in SKIPPED_DIRS:
                        continue
                    if chain and ignored(chain, rel, is_dir):
                        continue
                    if is_dir:
                        folders.append((name, rel))
                        continue
                    if is_link:
                        stats.skipped_symlinks += 1
                        continue
                    if not is_file:
                        continue  # FIFOs, sockets, devices: never opened
                    if stats.scanned_files >= max_files:
                        stats.limit_reason = "files"
                        return
                    stats.scanned_files += 1
                    if not stat_files:
                        yield Found(rel, fd, name, None)
                        continue
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        stats.skipped_io_errors += 1
                        continue
                    yield Found(rel, fd, name, st)
                for name, rel in reversed(folders):  # popped in name order
                    try:
                        sub = os.open(name, DIR_FLAGS, dir_fd=fd)
                    except PermissionError:
                        stats.skipped_io_errors += 1  # a folder the system will not let us read: "unreadable"
                        continue
                    except OSError:
                        stats.skipped_walk_errors += 1  # swapped for a symlink or removed since the listing
                        continue
                    stack.append((sub, rel + "/", chain))
            finally:
                os.close(fd)
    finally:
        for fd, _, _ in stack:
            os.close(fd)


def open_found(found: Found) -> tuple[int, os.stat_result] | None:
    """Open a walked file for reading, re-checking it is the same regular file (None when it changed or went).
    Without the walk's stat, O_NOFOLLOW and the regular-file check are the guard: whatever is opened is a regular
    file in the folder the walk holds open, never a link."""
    try:
        fd = os.open(found.name, FILE_FLAGS, dir_fd=found.dir_fd)
    except OSError:
        return None
    st = os.fstat(fd)
    same = found.st is None or (st.st_dev, st.st_ino) == (found.st.st_dev, found.st.st_ino)
    if not stat.S_ISREG(st.st_mode) or not same:
        os.close(fd)
        return None
    return fd, st
