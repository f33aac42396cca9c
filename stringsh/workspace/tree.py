"""Folders and symlinks as journal entries (`TreeOp`): found without following the last name, made and removed
one at a time under the workspace lock, and walked (never through a link) for /rm -r and /mv of a folder.

A symlink is an entry of its own here: deleting or moving one unlinks it and never touches what it points at,
and undo puts the link back with the target it had.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from dataclasses import dataclass, field

from stringsh.errors import NOT_FOUND_HINT, StringError
from stringsh.escapes import shown_name
from stringsh.workspace.journalrows import TreeOp
from stringsh.workspace.paths import DIR_FLAGS, Confiner

#: The hint of a missing source (/mv, /cp, /rm).
MISSING_HINT = "Nothing was changed; /ls shows what is there."
#: The folders of a tree walk are at most this deep (a folder nested deeper is refused, not walked).
MAX_DEPTH = 64


@dataclass
class Spot:
    """A path's last name inside its (real, opened) parent folder, looked at without following it."""

    fd: int
    name: str
    rel: str
    st: os.stat_result | None
    missing: list[str]  # parent folders that do not exist yet, outermost first (the leaf's folder is fd then)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def __enter__(self) -> Spot:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def kind(self) -> str:
        """file | dir | symlink | other | missing (the delete contract's types, docs/file-operations.md)."""
        if self.st is None:
            return "missing"
        mode = self.st.st_mode
        if stat.S_ISLNK(mode):
            return "symlink"
        if stat.S_ISDIR(mode):
            return "dir"
        return "file" if stat.S_ISREG(mode) else "other"


def locate(confiner: Confiner, path: str) -> Spot:
    """`_locate`, inside the workspace root only when the policy names several roots (see `_refuse_other_roots`)."""
    spot = _locate(confiner, path)
    if confiner.roots is not None:
        try:
            _refuse_other_roots(confiner, path, spot.rel)
        except BaseException:
            spot.close()
            raise
    return spot


def _refuse_other_roots(confiner: Confiner, path: str, rel: str) -> None:
    """Folder and link operations do not cross roots yet: a path naming another root, inside one nested in the
    workspace, or holding one, is refused before anything is read or changed (a `/rm -r` of a folder would
    otherwise remove a read_only root nested in it)."""
    where = confiner.real.joinpath(*[p for p in rel.split("/") if p not in ("", ".")])
    others = confiner.root_list()[1:]
    nested = [folder for _, folder, _ in others if confiner.real in folder.parents]
    named = confiner.route(path)[1]
    for ident, folder, mode in others:  # `ro:x` of a read_only root nested in the workspace: refused as `ro/x` is
        if mode != "read_write" and named == ident + ":" and confiner.real in folder.parents:
            from stringsh.workspace.roots import READ_ONLY_HINT

            raise StringError("NOT_PERMITTED", f"Root {ident} is read_only: {shown_name(path)} cannot be changed.",
                              READ_ONLY_HINT)
    if named or any(f == where or where in f.parents or f in where.parents for f in nested):
        raise StringError(
            "INVALID_TARGET",
            f"Refusing {shown_name(path)}: /mkdir, /mv, /cp and /rm work inside the workspace root only, and this "
            "path names or holds another root.",
            "Nothing was changed; /write, /edit and /undo work in every root (/info lists them).",
        )


def _locate(confiner: Confiner, path: str) -> Spot:
    """Resolve the parent folder (symlinks inside the root followed, as every path), then look at the last name
    with lstat: a link there is the entry itself. Secrets, engine state and protected paths are refused for the
    requested and the real path. The workspace root itself is refused: it is never a target."""
    if any(c in path for c in "\n\r\0"):
        raise StringError("INVALID_PATH", f"Path contains a line break: {path!r}",
                          "Nothing was changed; name files without line breaks.")
    parts = confiner.requested_parts(path)
    if not parts:
        raise StringError("INVALID_TARGET", "Refusing to act on the workspace root itself.",
                          "Name a file or folder inside the workspace.")
    check(confiner, parts, path)
    with confiner.resolve("/".join(parts[:-1]) or ".", create=True) as parent:
        if parent.missing or parent.st is None:
            real = [p for p in parent.rel.split("/") if p not in ("", ".")]
            return _spot(confiner, os.dup(parent.parent_fd), parts[-1], real, path,
                         [*parent.missing, parent.name])
        if not stat.S_ISDIR(parent.st.st_mode):
            raise StringError("NOT_FOUND", f"Not a directory: {parent.rel}", NOT_FOUND_HINT)
        fd = os.dup(parent.parent_fd) if parent.rel == "." else os.open(parent.name, DIR_FLAGS,
                                                                         dir_fd=parent.parent_fd)
        real = [] if parent.rel == "." else parent.rel.split("/")
    return _spot(confiner, fd, parts[-1], real, path, [])


def _spot(confiner: Confiner, fd: int, name: str, folder: list[str], shown: str, missing: list[str]) -> Spot:
    try:
        real = [*folder, name]
        check(confiner, real, shown)
        st = None
        if not missing:
            with contextlib.suppress(FileNotFoundError):
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        return Spot(fd, name, "/".join(real), st, missing)
    except BaseException:
        os.close(fd)
        raise


def check(confiner: Confiner, parts: list[str], shown: str) -> None:
    """Engine state, temp names, secrets and paths that run code later are never made, moved or removed."""
    confiner.check_allowed(parts, shown)
    confiner.check_change(parts, shown)


# -- executing ----------------------------------------------------------------------------------------------


def make(confiner: Confiner, op: TreeOp) -> bool:
    """Make the folder or link; False when the folder was there already (it is not ours to remove later)."""
    with locate(confiner, op.path) as spot:
        if spot.rel != op.path or spot.missing:
            raise StringError("CONFLICT",
                              f"The folder holding {shown_name(op.path)} moved or is gone; nothing was changed.")
        if spot.st is not None:
            if op.kind == "dir" and stat.S_ISDIR(spot.st.st_mode):
                return False
            raise StringError("CONFLICT", f"{shown_name(op.path)} exists already; nothing was changed.",
                              f"Move or delete {shown_name(op.path)} first.")
        if op.kind == "link":
            os.symlink(op.target or "", spot.name, dir_fd=spot.fd)
        else:
            os.mkdir(spot.name, 0o700 if op.mode is not None else 0o777, dir_fd=spot.fd)
            if op.mode is not None:  # the recorded bits exactly, not the umask's; set through the folder's fd
                fd = os.open(spot.name, DIR_FLAGS, dir_fd=spot.fd)
                try:
                    os.fchmod(fd, op.mode)
                finally:
                    os.close(fd)
        with contextlib.suppress(OSError):
            os.fsync(spot.fd)
        return True


def remove(confiner: Confiner, op: TreeOp) -> bool:
    """Remove the empty folder or the link (never what a link points at); False when it is gone already or holds
    something else now (a folder someone put a file in stays)."""
    try:
        spot = locate(confiner, op.path)
    except StringError:
        return False
    with spot:
        if spot.st is None or spot.rel != op.path:
            return False
        try:
            if op.kind == "link":
                if not stat.S_ISLNK(spot.st.st_mode) or read_link(spot.name, spot.fd) != op.target:
                    return False
                os.unlink(spot.name, dir_fd=spot.fd)
            else:
                if not stat.S_ISDIR(spot.st.st_mode):
                    return False
                os.rmdir(spot.name, dir_fd=spot.fd)
        except OSError as exc:
            if exc.errno in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOENT, errno.ENOTDIR, errno.EBUSY):
                return False
            raise
        with contextlib.suppress(OSError):
            os.fsync(spot.fd)
        return True


def make_all(confiner: Confiner, ops: tuple[TreeOp, ...]) -> list[TreeOp]:
    """Run the `make` entries in order; returns the folders that were there already."""
    return [op for op in ops if op.action == "make" and not make(confiner, op)]


def remove_all(confiner: Confiner, ops: tuple[TreeOp, ...]) -> list[TreeOp]:
    """Run the `remove` entries in order (innermost first); returns those that stayed. Never raises for one
    that stays: the files are already committed, so a folder someone filled meanwhile is simply kept."""
    return [op for op in ops if op.action == "remove" and not remove(confiner, op)]


# -- walking ------------------------------------------------------------------------------------------------


@dataclass
class Walk:
    """Everything under a folder, symlinks as links: files (path, mode, size), links and folders (outermost
    first, with their modes)."""

    files: list[tuple[str, int, int]] = field(default_factory=list)
    links: list[tuple[str, str]] = field(default_factory=list)
    dirs: list[tuple[str, int]] = field(default_factory=list)

    @property
    def size(self) -> int:
        return sum(size for _, _, size in self.files)


def walk(confiner: Confiner, spot: Spot) -> Walk:
    """Walk the folder at `spot` without following any link; refuses the whole walk on a secret, a protected path
    or engine state inside it, and on entries that are not files, folders or links (a FIFO, a socket, a device)."""
    found = Walk()
    fd = os.open(spot.name, DIR_FLAGS, dir_fd=spot.fd)
    try:
        _walk(confiner, fd, spot.rel, found, 0)
    finally:
        os.close(fd)
    return found


def read_link(name: str, dir_fd: int) -> str:
    """The target of a link the walk saw as one; swapped for a folder or file since (readlink's EINVAL), the tree
    changed under the request: the race error, which every caller reports as a CONFLICT naming the path."""
    try:
        return os.readlink(name, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno != errno.EINVAL:
            raise
        raise OSError(errno.ESTALE, "no longer a link", name) from exc


def _walk(confiner: Confiner, fd: int, rel: str, found: Walk, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise StringError("INVALID_TARGET", f"Folders nested deeper than {MAX_DEPTH} levels: {shown_name(rel)}")
    found.dirs.append((rel, stat.S_IMODE(os.fstat(fd).st_mode)))
    for name in sorted(os.listdir(fd)):
        path = f"{rel}/{name}"
        check(confiner, path.split("/"), path)
        st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        if stat.S_ISLNK(st.st_mode):
            found.links.append((path, read_link(name, fd)))
        elif stat.S_ISREG(st.st_mode):
            found.files.append((path, stat.S_IMODE(st.st_mode), st.st_size))
        elif stat.S_ISDIR(st.st_mode):
            sub = os.open(name, DIR_FLAGS, dir_fd=fd)
            try:
                _walk(confiner, sub, path, found, depth + 1)
            finally:
                os.close(sub)
        else:
            raise StringError("INVALID_TARGET", f"Not a file, folder or link: {shown_name(path)}",
                              "Remove it outside stringsh; nothing was changed.")
