"""Where a path git reads (a `gitdir:` line, `commondir`, an alternate, a local remote) really leads, resolved
the way git's own process will resolve it, and whether that lies in a set of folders, compared by device and inode.

stringsh and git are different processes with different working folders: `/proc/self/cwd`, `/proc/<pid>/…` and
`/dev/fd/N` mean one thing here and another there, so a path that passes through procfs (directly or by a symlink)
is not resolved at all: callers refuse it. Every other symlink is followed one component at a time, as the kernel
does, from the folder git would start from (`base`)."""

from __future__ import annotations

import os
import stat
from collections import deque
from collections.abc import Iterable
from pathlib import Path

#: The kernel's own limit on symlinks followed in one lookup.
MAX_LINKS = 40


class ProcessView(Exception):
    """The path passes through procfs (`/proc/self/cwd`, `/dev/fd/N`): what it names depends on the process."""


def _procfs() -> int | None:
    try:
        return os.lstat("/proc").st_dev
    except OSError:
        return None


def resolve(text: str, base: Path) -> Path:
    """`text` (relative to `base`) with every symlink followed; a missing tail is kept as written (git would not
    find it either). Raises ProcessView for a path through procfs."""
    proc = _procfs()
    parts = deque((text if os.path.isabs(text) else os.path.join(base, text)).split("/"))
    current = "/"
    links = 0
    while parts:
        name = parts.popleft()
        if name in ("", "."):
            continue
        if name == "..":
            current = os.path.dirname(current)
            continue
        candidate = os.path.join(current, name)
        try:
            info = os.lstat(candidate)
        except OSError:  # missing or unreadable: nothing further to follow
            return Path(os.path.normpath(os.path.join(candidate, *parts)))
        if proc is not None and info.st_dev == proc:
            raise ProcessView(text)
        if stat.S_ISLNK(info.st_mode):
            links += 1
            if links > MAX_LINKS:
                return Path(os.path.normpath(os.path.join(candidate, *parts)))  # git's lookup fails (ELOOP)
            target = os.readlink(candidate)
            if os.path.isabs(target):
                current = "/"
            parts.extendleft(reversed(target.split("/")))
            continue
        current = candidate
    return Path(current)


def identity(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def within(path: Path, folders: Iterable[Path]) -> bool:
    """Whether `path` (resolved) is one of `folders` or below one, by (device, inode) of it and its parents:
    a second spelling of a folder (a bind mount, another link to it) is the same folder."""
    wanted = {ident for ident in map(identity, folders) if ident is not None}
    return any(identity(folder) in wanted for folder in (path, *path.parents))


def allowed_folders(entries: Iterable[str]) -> list[Path]:
    """The policy's `[git] allow_outside` entries as folders (the user typed them: `~` is their home)."""
    return [Path(os.path.expanduser(entry)).resolve() for entry in entries]
