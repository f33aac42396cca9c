"""list_dir: a folder's direct children sorted by name; secrets, engine state and stringsh temp files left out.
list_tree: the same listing, folder by folder below it (each entered by descriptor, never through a link)."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError
from stringsh.hints import command_word
from stringsh.workspace.ops.guard import require
from stringsh.workspace.paths import DIR_FLAGS, STATE_DIR, TEMP_PREFIX

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace


class DirEntry(NamedTuple):
    name: str
    is_dir: bool


class ListRequest(NamedTuple):
    path: str = "."
    topic: str | None = None


class TreeRequest(NamedTuple):
    path: str = "."
    #: Folders this deep (the listed folder's entries are depth 1) are listed without their children.
    max_depth: int | None = None
    #: Entries left out (not counted, not entered), by their path relative to the listed folder.
    skip: Callable[[str], bool] | None = None
    #: The walk stops once it has listed more entries than this (FolderTree.over_limit).
    limit: int | None = None
    topic: str | None = None


class TreeEntry(NamedTuple):
    """A listed entry; a folder's `children` are its own listing (empty for a link to a folder, which is never
    entered, and past `max_depth`)."""

    name: str
    is_dir: bool
    children: tuple[TreeEntry, ...] = ()


class FolderTree(NamedTuple):
    rel: str
    entries: tuple[TreeEntry, ...]
    #: More entries than the request's limit: the walk stopped, `entries` is incomplete.
    over_limit: bool


def list_dir(ws: Workspace, request: ListRequest) -> list[DirEntry]:
    require(ws.policy, ws.policy.permissions.list_dir, "list_dir")
    with ws.state.audited("list_dir", [request.path], request.topic):
        _, fd, base, prefix = _open(ws, request.path)
        try:
            return _entries(ws, fd, base, prefix)
        finally:
            os.close(fd)


def list_tree(ws: Workspace, request: TreeRequest) -> FolderTree:
    """list_dir's listing of the folder and of every folder below it (depth first, names sorted), with list_dir's
    rules in each; a subfolder is opened from its parent's descriptor with O_NOFOLLOW, so a link (or a folder
    swapped for one meanwhile) is listed, never entered."""
    require(ws.policy, ws.policy.permissions.list_dir, "list_dir")
    with ws.state.audited("list_dir", [request.path], request.topic):
        rel, fd, base, prefix = _open(ws, request.path)
        walk = _TreeWalk(ws, request, prefix)
        try:
            entries = walk.folder(fd, base, request.path, "", 1)
        except _OverLimit:
            return FolderTree(rel, (), True)
        finally:
            os.close(fd)
        return FolderTree(rel, tuple(entries), False)


def _open(ws: Workspace, path: str) -> tuple[str, int, str, str]:
    """(rel, an open descriptor on the folder, its listing base, the `id:` prefix of its root)."""
    with ws.confiner.resolve(path) as res:
        if res.st is not None and not stat.S_ISDIR(res.st.st_mode):
            raise StringError("INVALID_TARGET", "Not a directory",
                              f"{res.rel} is a file; use /open {command_word(res.rel)}")
        fd = os.dup(res.parent_fd) if res.name == "" else os.open(res.name, DIR_FLAGS, dir_fd=res.parent_fd)
        base = "" if res.rel == "." else res.rel if res.rel.endswith(":") else res.rel + "/"
        _, prefix, _ = ws.confiner.route(base or ".")  # `docs:` names another root: match inside it
        return res.rel, fd, base, prefix


class _OverLimit(Exception):
    pass


class _TreeWalk:
    def __init__(self, ws: Workspace, request: TreeRequest, prefix: str) -> None:
        self.ws, self.request, self.prefix, self.count = ws, request, prefix, 0

    def folder(self, fd: int, base: str, shown: str, inner: str, depth: int) -> list[TreeEntry]:
        """The entries of the open folder `fd` (root-relative `base`, `shown` as the request names it, `inner`
        relative to the listed folder) and, within max_depth, of the folders in it."""
        request, out = self.request, []
        for entry in _entries(self.ws, fd, base, self.prefix):
            rel = inner + entry.name
            if request.skip is not None and request.skip(rel):
                continue
            self.count += 1
            if request.limit is not None and self.count > request.limit:
                raise _OverLimit
            children: list[TreeEntry] = []
            if entry.is_dir and (request.max_depth is None or depth < request.max_depth):
                child = entry.name if shown in ("", ".") else f"{shown.rstrip('/')}/{entry.name}"
                with self.ws.state.audited("list_dir", [child], None):  # an OSError names the folder
                    try:
                        sub = os.open(entry.name, DIR_FLAGS, dir_fd=fd)
                    except OSError as exc:
                        if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                            raise
                        sub = -1  # a link (to a folder inside the root): listed, not entered
                if sub >= 0:
                    try:
                        children = self.folder(sub, f"{base}{entry.name}/", child, rel + "/", depth + 1)
                    finally:
                        os.close(sub)
            out.append(TreeEntry(entry.name, entry.is_dir, tuple(children)))
        return out


def _entries(ws: Workspace, fd: int, base: str, prefix: str) -> list[DirEntry]:
    """The listing of the open folder `fd` at `base` (`prefix`: the `id:` of its root).

    Read with one `scandir` of the confined descriptor: the kernel's d_type says folder, file or symlink without a
    stat per entry (`DirEntry` stats only where d_type is unknown; symlinks are resolved confined, as before).
    Secrets: a name's path is denied when it or a folder it is in matches (`SecretMatcher.denied`); the folders
    are the same for every entry, so they are checked once here and each entry needs `denied_leaf` only, which
    remembers names (tests/workspace/test_glob_prefilter.py and test_listing_fastpath.py check the rules agree)."""
    matcher = ws.confiner.matcher
    folder = base[len(prefix):]
    if folder and matcher.denied(folder.rstrip("/")):
        return []  # covers every entry (resolve refuses such a folder before this)
    with os.scandir(fd) as scan:
        found = {entry.name: entry for entry in scan}
    entries: list[DirEntry] = []
    limit, at_root = ws.policy.limits.max_walk_entries, base == prefix
    make = tuple.__new__  # what DirEntry._make does, without its Python-level call per entry
    for name in sorted(found):
        if (at_root and name == STATE_DIR) or name.startswith(TEMP_PREFIX) or matcher.denied_leaf(folder + name):
            continue
        entry = found[name]
        try:
            is_dir = None if entry.is_symlink() else entry.is_dir(follow_symlinks=False)
        except OSError:  # d_type unknown and the entry gone or unreadable since
            is_dir = False
        entries.append(make(DirEntry, (name, _link_is_dir(ws, base + name) if is_dir is None else is_dir)))
        if len(entries) >= limit:
            break
    return entries


def _link_is_dir(ws: Workspace, rel: str) -> bool:
    """A symlink counts as a folder only when it resolves inside the root to one."""
    try:
        with ws.confiner.resolve(rel) as target:
            return target.st is not None and stat.S_ISDIR(target.st.st_mode)
    except (StringError, OSError):
        return False
