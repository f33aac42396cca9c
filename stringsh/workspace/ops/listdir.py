"""list_dir: a folder's direct children sorted by name; secrets, engine state and stringsh temp files left out."""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError
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


def list_dir(ws: Workspace, request: ListRequest) -> list[DirEntry]:
    require(ws.policy, ws.policy.permissions.list_dir, "list_dir")
    with ws.state.audited("list_dir", [request.path], request.topic):
        with ws.confiner.resolve(request.path) as res:
            if res.st is not None and not stat.S_ISDIR(res.st.st_mode):
                raise StringError("INVALID_TARGET", "Not a directory", f"{res.rel} is a file; use /open {res.rel}")
            fd = os.dup(res.parent_fd) if res.name == "" else os.open(res.name, DIR_FLAGS, dir_fd=res.parent_fd)
            base = "" if res.rel == "." else res.rel if res.rel.endswith(":") else res.rel + "/"
            _, prefix, _ = ws.confiner.route(base or ".")  # `docs:` names another root: match inside it
        try:
            return _entries(ws, fd, base, prefix)
        finally:
            os.close(fd)


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
