"""Applying, reverting and recovering change sets: journal first, then temps, renames, directory fsyncs.

Callers hold the workspace lock. Any failure while files are being replaced restores the previous bytes of
the files already replaced before the error propagates; a crash leaves a pending journal entry that `recover`
rolls back (or forward, when every file already holds its new bytes). Recovery and revert only touch the file a
change set wrote: a path that now leads elsewhere through a symlink is left alone.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from stringsh.errors import NOT_FOUND_HINT, StringError, is_a_folder
from stringsh.escapes import shown_name
from stringsh.workspace import atomic
from stringsh.workspace.atomic import sha256
from stringsh.workspace.journal import Journal
from stringsh.workspace.journalrows import FileRow, MissingBlob, inverse_tree
from stringsh.workspace.oserrors import FULL
from stringsh.workspace.paths import DIR_FLAGS, Confiner, Resolved


@dataclass
class Plan:
    """One file of a change set, resolved and with its previous bytes read."""

    idx: int
    res: Resolved
    data: bytes | None
    prev: bytes | None
    new_mode: int | None
    prev_mode: int | None
    new_times: tuple[int, int] | None = None  # (atime_ns, mtime_ns) the written file gets; None: now
    prev_times: tuple[int, int] | None = None  # the replaced file's, journalled so undo gives them back
    synced: list[int] = field(default_factory=list)
    existed: list[str] = field(default_factory=list)  # planned new folders someone made before we could

    @property
    def new_dirs(self) -> tuple[str, ...]:
        """The folders this change creates for the file (root-relative, outermost first): undo removes them."""
        folders = self.res.rel.split("/")[:-1]
        made = len(self.res.missing)
        return tuple("/".join(folders[: len(folders) - made + k + 1]) for k in range(made))

    @cached_property
    def prev_sha(self) -> str | None:
        """Hashed once: the row, the blob key and the checks all ask (a 1 MiB file costs ~1 ms a hash)."""
        return None if self.prev is None else sha256(self.prev)

    @cached_property
    def new_sha(self) -> str | None:
        return None if self.data is None else sha256(self.data)

    def row(self) -> FileRow:
        return FileRow(self.idx, self.res.rel, self.prev_sha, self.new_sha, self.prev_mode, self.new_mode,
                       self.new_dirs, prev_times=self.prev_times)


#: Bytes whose SHA-256 the caller already has, with it: (bytes, hex digest).
Digest = tuple[bytes, str]


def learn(p: Plan, known: tuple[Digest, ...]) -> None:
    """Give `p` the digests of its bytes that equal known ones: a comparison is exact and ~20x cheaper than SHA-256
    (a 1 MiB file: ~0.05 against ~1 ms), so bytes read twice under the lock are hashed once."""
    for data, sha in known:
        if p.prev is not None and "prev_sha" not in p.__dict__ and p.prev == data:
            p.__dict__["prev_sha"] = sha  # Plan.prev_sha and new_sha are cached properties
        if p.data is not None and "new_sha" not in p.__dict__ and p.data == data:
            p.__dict__["new_sha"] = sha


def current_bytes(res: Resolved, limit: int | None = None) -> tuple[bytes | None, int | None]:
    """The bytes and mode at a resolved location, None when absent; a folder is not a file to change."""
    if res.st is None:
        return None, None
    if stat.S_ISDIR(res.st.st_mode):
        raise is_a_folder(res.rel)
    data, st = atomic.read_at(res.parent_fd, res.name, res.rel, limit)
    return data, stat.S_IMODE(st.st_mode)


def plan(confiner: Confiner, idx: int, path: str, data: bytes | None, expected: str | None,
         mode: int | None, limit: int | None = None, times: tuple[int, int] | None = None,
         keep_times: bool = False, known: tuple[Digest, ...] = ()) -> Plan:
    """Resolve one file and read the bytes it replaces (kept in the journal, so at most `limit` of them).
    `keep_times`: also keep the replaced file's access and modification times (a move, copy or delete, whose
    undo puts the file back as it was; an edit's undo leaves them new, so make-like tools rebuild).
    `known`: bytes the caller hashed already (read under the lock, or checked against their hash): the previous
    or new bytes equal to one of them take its digest instead of being hashed again (`learn`)."""
    res = confiner.resolve(path, create=True)  # a missing file is judged below (CONFLICT or NOT_FOUND)
    try:
        prev, prev_mode = current_bytes(res, limit)
        new_mode = None if data is None else (mode if mode is not None else prev_mode or atomic.DEFAULT_MODE)
        st = res.st  # the leaf's lstat, taken before reading it touched the access time
        prev_times = (st.st_atime_ns, st.st_mtime_ns) if keep_times and prev is not None and st else None
        p = Plan(idx, res, data, prev, new_mode, prev_mode, None if data is None else times, prev_times)
        learn(p, known)
        if expected is not None and (p.prev_sha or "") != expected:
            what = "was created" if expected == "" else ("was deleted" if prev is None else "changed")
            raise StringError(
                "CONFLICT",
                f"{shown_name(res.rel)} {what} since it was read; nothing was written.",
                f"Read {shown_name(res.rel)} again and redo the change.",
            )
        if data is None and prev is None:
            raise StringError("NOT_FOUND", f"File not found: {shown_name(res.rel)}", NOT_FOUND_HINT)
        return p
    except BaseException:
        res.close()
        raise


def _make_parents(p: Plan) -> None:
    fd = p.res.parent_fd
    planned = p.new_dirs
    for k, name in enumerate(p.res.missing):
        try:
            os.mkdir(name, 0o777, dir_fd=fd)
        except FileExistsError:
            p.existed.append(planned[k])  # not ours: undo must never remove it
        p.synced.append(os.dup(fd))
        try:
            new = os.open(name, DIR_FLAGS, dir_fd=fd)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                raise StringError("INVALID_PATH",
                                  f"A folder on the way to {shown_name(p.res.rel)} is not a folder.") from None
            raise
        os.close(fd)
        fd = new
        p.res.parent_fd = fd
    p.res.missing = []


def _put(fd: int, name: str, tmp: str, data: bytes | None, mode: int | None,
         times: tuple[int, int] | None = None) -> None:
    if data is None:
        atomic.remove(fd, name)
    else:
        atomic.stage(fd, tmp, data, mode if mode is not None else atomic.DEFAULT_MODE)
        if times is not None:  # on the temp, before the rename (which keeps them)
            os.utime(tmp, ns=times, dir_fd=fd, follow_symlinks=False)
        atomic.commit(fd, tmp, name)


def _set_times(fd: int, times: tuple[int, int] | None) -> None:
    """Give a staged file its kept times before it is renamed into place (a rename keeps them)."""
    if times is not None:
        os.utime(fd, ns=times)


def execute(cs: int, plans: list[Plan], pool: atomic.FsyncPool, seal: Callable[[], None] | None = None) -> None:
    """Stage every new file; fsync the temps while `seal` makes the journal record durable; then rename them
    all and sync the folders. Undo what was done on failure."""
    replaced: list[Plan] = []
    try:
        fds: list[int] = []
        try:
            for p in plans:
                if p.data is not None:
                    _make_parents(p)
                    tmp = atomic.temp_name(cs, p.idx)
                    fds.append(atomic.stage_open(p.res.parent_fd, tmp, p.data, p.new_mode or atomic.DEFAULT_MODE))
                    _set_times(fds[-1], p.new_times)
            pool.fsync_all(fds, seal)
        finally:
            for fd in fds:
                os.close(fd)
        for p in plans:
            replaced.append(p)
            if p.data is None:
                atomic.remove(p.res.parent_fd, p.res.name)
            else:
                atomic.commit(p.res.parent_fd, atomic.temp_name(cs, p.idx), p.res.name)
        atomic.fsync_dirs([p.res.parent_fd for p in plans] + [fd for p in plans for fd in p.synced], pool)
    except BaseException as exc:
        for p in reversed(replaced):
            with contextlib.suppress(OSError):
                _put(p.res.parent_fd, p.res.name, atomic.temp_name(cs, p.idx), p.prev, p.prev_mode,
                     p.prev_times)
        for p in plans:
            if p.res.parent_fd >= 0:
                with contextlib.suppress(OSError):  # a temp that cannot go must not hide why the change failed
                    atomic.remove(p.res.parent_fd, atomic.temp_name(cs, p.idx))
        if isinstance(exc, OSError) and exc.errno in FULL:  # how much the change set needed: NO_SPACE says it
            exc.needed = sum(len(p.data) for p in plans if p.data is not None)  # type: ignore[attr-defined]
        raise


def remove_new_dirs(confiner: Confiner, dirs: tuple[str, ...]) -> list[str]:
    """Remove the folders a change created, innermost first, each only while it is empty and still the folder at
    that path (never through a link); stops at the first that stays. Returns those removed."""
    removed: list[str] = []
    for rel in reversed(dirs):
        try:
            with confiner.resolve(rel, create=True) as res:
                if res.rel != rel or res.st is None or not stat.S_ISDIR(res.st.st_mode):
                    break
                os.rmdir(res.name, dir_fd=res.parent_fd)
                with contextlib.suppress(OSError):
                    os.fsync(res.parent_fd)
        except (StringError, OSError):
            break
        removed.append(rel)
    return removed


def close_plans(plans: list[Plan]) -> None:
    for p in plans:
        p.res.close()
        for fd in p.synced:
            os.close(fd)
        p.synced.clear()


def recover_all(journal: Journal, confiner: Confiner, pending: list[int], pool: atomic.FsyncPool) -> None:
    """Bring every crashed change set to its before or after state, newest first. A chain of change sets on one
    file written by one group commit (groupcommit.py) renamed only the newest one's bytes into place: when that one
    is rolled forward, each older one in the chain is judged by the bytes the newer one started from (`later`)."""
    later: dict[str, str | None] = {}
    for cs in reversed(pending):
        recover(journal, confiner, cs, pool, later)


def recover(journal: Journal, confiner: Confiner, cs: int, pool: atomic.FsyncPool,
            later: dict[str, str | None] | None = None) -> str:
    """Bring a crashed change set to its before or after state; returns the state recorded. `later`: per path, the
    bytes (hash) a newer crashed change set rolled forward started from (recover_all), updated here."""
    rows = journal.files(cs)
    if rows and rows[0].prev_size is not None:  # an append or its undo (ops/appending.py): bytes past an offset
        from stringsh.workspace.recovery import recover_append

        return recover_append(journal, confiner, cs, rows[0])
    tree = journal.tree(cs)
    if tree:  # folders and links (a /mkdir, /mv, /rm): put back the removed ones so the files can be judged
        from stringsh.workspace import tree as treeops

        for op in inverse_tree(tuple(op for op in tree if op.action == "remove")):
            with contextlib.suppress(StringError, OSError):
                treeops.make(confiner, op)
    state = _recover_files(journal, confiner, cs, pool, rows, {} if later is None else later)
    if tree:
        if state == "done":  # forward: the folders and links the change made, and the removals, once more
            for op in tree:
                with contextlib.suppress(StringError, OSError):
                    treeops.make(confiner, op) if op.action == "make" else treeops.remove(confiner, op)
        else:
            for op in inverse_tree(tuple(op for op in tree if op.action == "make")):
                with contextlib.suppress(StringError, OSError):
                    treeops.remove(confiner, op)
    change = journal.get(cs)
    journal.finish(cs, state, change.reverts if change else None)
    return state


def _recover_files(journal: Journal, confiner: Confiner, cs: int, pool: atomic.FsyncPool,
                   rows: list[FileRow], later: dict[str, str | None]) -> str:
    """The files of a crashed change set: forward when every one holds its new bytes (or the bytes a newer change
    set rolled forward started from, `later`), else back."""
    located: list[tuple[FileRow, Resolved | None, str | None]] = []
    try:
        for row in rows:
            try:
                res = confiner.resolve(row.path, create=True)
            except (StringError, OSError):
                located.append((row, None, None))
                continue
            if res.rel != row.path:  # a symlink now stands where the file was written: never written through
                res.close()
                located.append((row, None, None))
                continue
            try:
                data, _ = current_bytes(res)
                located.append((row, res, None if data is None else sha256(data)))
            except (StringError, OSError):
                located.append((row, res, "?"))
        forward = all(res is not None and later.get(row.path, cur) == row.new_sha for row, res, cur in located)
        for row, _, _ in located:
            if forward:
                later[row.path] = row.prev_sha
            else:
                later.pop(row.path, None)
        if not forward:
            for row, res, cur in located:
                # Only bytes this change set wrote are taken back; anything else is someone's later edit.
                if res is None or cur != row.new_sha or cur == row.prev_sha or res.missing:
                    continue
                try:
                    prev = None if row.prev_sha is None else journal.blob(row.prev_sha)
                except MissingBlob:
                    raise StringError(
                        "INTERNAL_ERROR",
                        f"Cannot roll back interrupted change {cs}: the journal lost the previous bytes of "
                        f"{shown_name(row.path)}.",
                        f"Check {shown_name(row.path)} by hand, then move the change journal aside: {journal.path}",
                    ) from None
                _put(res.parent_fd, res.name, atomic.temp_name(cs, row.idx), prev, row.prev_mode, row.prev_times)
        for row, res, _ in located:
            if res is not None and not res.missing:
                atomic.remove(res.parent_fd, atomic.temp_name(cs, row.idx))
        atomic.fsync_dirs([res.parent_fd for _, res, _ in located if res is not None and not res.missing], pool)
    finally:
        for _, res, _ in located:
            if res is not None:
                res.close()
    return "done" if forward else "rolled_back"
