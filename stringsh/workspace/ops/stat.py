"""stat: metadata of one confined path (a shell spool file included), None when it does not exist."""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError
from stringsh.workspace.ops.guard import require

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace


class FileInfo(NamedTuple):
    """Metadata of one confined path; `rel` is the resolved root-relative POSIX path."""

    rel: str
    size: int
    mtime_ns: int
    mode: int
    is_dir: bool


class StatRequest(NamedTuple):
    """`topic`: a front end's `/stat`, recorded in the audit log; None: a look-up inside another operation."""

    path: str
    topic: str | None = None


def stat_path(ws: Workspace, request: StatRequest) -> FileInfo | None:
    if request.topic is None:
        return _stat(ws, request)
    with ws.state.audited("stat", [request.path], request.topic) as note:
        info = _stat(ws, request)
        if info is None:
            note.outcome = "NOT_FOUND"
        return info


def _stat(ws: Workspace, request: StatRequest) -> FileInfo | None:
    require(ws.policy, ws.policy.permissions.stat, "stat")
    try:
        res = ws.confiner.resolve(request.path, reading=True)
    except StringError as exc:
        if exc.code == "NOT_FOUND":
            return None
        raise
    with res:
        st = res.st if res.st is not None else os.fstat(res.parent_fd)
        return FileInfo(res.rel, st.st_size, st.st_mtime_ns, stat.S_IMODE(st.st_mode), stat.S_ISDIR(st.st_mode))
