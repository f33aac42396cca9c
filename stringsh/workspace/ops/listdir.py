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
            entries = []
            for name in sorted(os.listdir(fd)):
                rel = base + name
                if (base == prefix and name == STATE_DIR) or name.startswith(TEMP_PREFIX):
                    continue
                if ws.confiner.matcher.denied(rel[len(prefix):]):
                    continue
                entries.append(DirEntry(name, _is_dir(ws, fd, name, rel)))
                if len(entries) >= ws.policy.limits.max_walk_entries:
                    break
            return entries
        finally:
            os.close(fd)


def _is_dir(ws: Workspace, fd: int, name: str, rel: str) -> bool:
    try:
        st = os.stat(name, dir_fd=fd, follow_symlinks=False)
    except OSError:
        return False
    if not stat.S_ISLNK(st.st_mode):
        return stat.S_ISDIR(st.st_mode)
    try:  # a symlink counts as a folder only when it resolves inside the root to one
        with ws.confiner.resolve(rel) as target:
            return target.st is not None and stat.S_ISDIR(target.st.st_mode)
    except (StringError, OSError):
        return False
