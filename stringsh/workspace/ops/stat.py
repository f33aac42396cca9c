"""stat: metadata of one confined path (a shell spool file included), None when it does not exist.

With `follow=False` (the `/stat` command) a symbolic link is reported as a link, from an lstat of the link itself:
its target is named only when it resolves inside its root to something that is neither a secret nor engine state,
and it is never followed out of the root. Every other caller (open, write, the seen-guard) follows links inside
the root as before."""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError
from stringsh.workspace.ops.guard import require

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace
    from stringsh.workspace.paths import Resolved


class FileInfo(NamedTuple):
    """Metadata of one confined path; `rel` is the resolved root-relative POSIX path (the link's own path for a
    symlink). docs/file-operations.md's fields: `kind` is its `type` (file | dir | symlink | other), `size`, `mtime_ns`,
    `atime_ns`, `birth_ns` (None where the platform does not say) and `mode` (read-only when 0o200 is off)."""

    rel: str
    size: int
    mtime_ns: int
    mode: int
    is_dir: bool
    kind: str = "file"
    atime_ns: int = 0
    birth_ns: int | None = None
    target: str | None = None  # a symlink's target, root-relative, when shown (see `link_target`)
    target_kind: str | None = None  # what it points at (file | dir | other), or the reason it is not shown:
    #                                 "outside" (leaves the root), "missing" (dangling), "hidden" (a secret, state)


class StatRequest(NamedTuple):
    """`topic`: a front end's `/stat`, recorded in the audit log; None: a look-up inside another operation."""

    path: str
    follow: bool = True
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
    if not request.follow and not request.path.endswith("/"):  # `link/` names what it leads to, as in POSIX
        link = _link(ws, request.path)
        if link is not None:
            return link
    try:
        res = ws.confiner.resolve(request.path, reading=True)
    except StringError as exc:
        if exc.code == "NOT_FOUND":
            return None
        raise
    with res:
        st = res.st if res.st is not None else os.fstat(res.parent_fd)
        return _info(res.rel, st)


def kind_of(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISDIR(mode):
        return "dir"
    return "file" if stat.S_ISREG(mode) else "other"


def _info(rel: str, st: os.stat_result, target: str | None = None, target_kind: str | None = None) -> FileInfo:
    birth = getattr(st, "st_birthtime_ns", None)  # an OS field, not our object: present on macOS and BSDs only
    return FileInfo(rel, st.st_size, st.st_mtime_ns, stat.S_IMODE(st.st_mode), stat.S_ISDIR(st.st_mode),
                    kind_of(st.st_mode), st.st_atime_ns, birth, target, target_kind)


def _link(ws: Workspace, path: str) -> FileInfo | None:
    """The path's last name looked at without following it, when it is a symlink; None otherwise (or when its
    folder cannot be reached: the following walk then says why, in the words it always used)."""
    confiner = ws.confiner
    try:
        confiner.relative(path, reading=True)  # the requested path's own refusals (a secret, `..`, engine state)
        parts = confiner.requested_parts(path)
    except StringError:
        return None  # the following walk refuses it, in its own words
    if not parts:
        return None
    prefix = confiner.route(path)[1]
    folder = "/".join(parts[:-1]) or prefix or "."
    name = parts[0][len(prefix):] if prefix and len(parts) == 1 else parts[-1]  # `docs:ln`: the prefix is its folder
    try:
        parent = confiner.resolve(folder, reading=True)
    except StringError:
        return None
    with parent:
        if parent.st is not None and not stat.S_ISDIR(parent.st.st_mode):
            return None
        fd = _open_folder(parent)
        try:
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except OSError:
            return None
        finally:
            os.close(fd)
        if not stat.S_ISLNK(st.st_mode):
            return None
        rel = name if parent.rel in (".", "") else (parent.rel + name if parent.rel.endswith(":")
                                                    else f"{parent.rel}/{name}")
    target, target_kind = link_target(ws, path)
    return _info(rel, st, target, target_kind)


def _open_folder(parent: Resolved) -> int:
    from stringsh.workspace.paths import DIR_FLAGS

    if parent.rel == "." or parent.name == "":
        return os.dup(parent.parent_fd)
    return os.open(parent.name, DIR_FLAGS, dir_fd=parent.parent_fd)


def link_target(ws: Workspace, path: str) -> tuple[str | None, str]:
    """(the root-relative path the link leads to, what is there), or (None, why it is not shown). Resolved by
    the same confined walk as every read: a target out of the root is never opened or named."""
    try:
        res = ws.confiner.resolve(path, reading=True)
    except StringError as exc:
        if exc.code == "NOT_FOUND":
            return None, "missing"
        if exc.code in ("SECRET_DENIED", "NOT_PERMITTED"):
            return None, "hidden"
        return None, "outside"
    with res:
        st = res.st if res.st is not None else os.fstat(res.parent_fd)
        return res.rel, kind_of(st.st_mode)
