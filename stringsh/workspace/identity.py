"""Which tree a state folder belongs to, so a folder re-created at the same path never inherits the journal.

The state folder is found by the workspace's path (state.py), but a path is not a tree: after `rm -rf ws && cp -a
base ws`, or a fresh clone at the same path, the old journal would list changes made to files that no longer
exist, and a revert would act on the new tree. So the state folder also records which tree it belongs to, and a
tree that is not that one gets a fresh state folder (the old one is moved aside, kept, never replayed).

Decision: a tree is the same one when ALL of these hold:
- its root folder has the inode the record names. A re-created folder is a new inode, but a file system may hand
  the freed number to the next folder made (ext4 does), so the inode alone is not enough;
- the inode's generation is the one recorded, where the file system reports one (ext4, btrfs: `FS_IOC_GETVERSION`,
  the number NFS file handles use to tell a reused inode from the old one). That tells a re-created folder even
  when it is a copy of the very tree (`cp -a ws keep; rm -rf ws; cp -a keep ws`) and got the old inode number;
- its `.stringsh/workspace-id` holds the record's random id. A copy (`cp -a`) or a clone does not carry it, or
  carries another tree's (the copied one's id belongs to the copied tree's own state), so a re-created tree whose
  root happens to get the old inode number still differs. The id is no secret: it only names the tree.
Not part of it: the root's ctime (it changes whenever an entry is added to or removed from the folder), its birth
time (Python on Linux does not report it) and its device number (a remount can renumber a device; it is compared
only where no id could be left, a workspace whose `.stringsh/` cannot be written).

Consequences: moving a folder away and back keeps its history (same inode, same id); deleting `.stringsh/` (e.g.
`git clean -x`) starts a fresh journal, as a re-created tree does. A state folder made before this record existed
is adopted by the tree found at its path when it is first used.

Both files are opened without following links, only if regular, and read with a small limit; a workspace's id
file is untrusted input: it can only make stringsh start a fresh journal, never adopt another tree's.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import sys
import time
from pathlib import Path
from typing import NamedTuple

from stringsh.workspace import atomic
from stringsh.workspace.paths import STATE_DIR

#: In the state folder: which tree it belongs to.
RECORD_FILE = "identity"
#: In the workspace's `.stringsh/`: the tree's id.
MARK_FILE = "workspace-id"
#: What a moved-aside state folder's name gets after the key (then a UTC time).
ASIDE = ".replaced-"
ID_FORMAT = re.compile(r"^[0-9a-f]{32}$")
READ_LIMIT = 256
#: `_IOR('v', 1, long)`: an inode's generation (the kernel fills the first 4 bytes).
FS_IOC_GETVERSION = 0x80087601


class Identity(NamedTuple):
    """The tree a state folder belongs to: its random id, and its root's device and inode; `marked`: the id is
    also in the tree's `.stringsh/` (else the device stands in for it)."""

    id: str
    dev: int
    ino: int
    gen: int | None
    marked: bool

    def text(self) -> str:
        gen = "-" if self.gen is None else self.gen
        return f"id={self.id}\ndev={self.dev}\nino={self.ino}\ngen={gen}\nmarked={'yes' if self.marked else 'no'}\n"

    @classmethod
    def parse(cls, text: str) -> Identity | None:
        """The record in `text`; None when it is not one (damaged)."""
        fields = dict(line.partition("=")[::2] for line in text.splitlines() if line)
        try:
            ident, dev, ino, marked = fields["id"], int(fields["dev"]), int(fields["ino"]), fields["marked"]
            gen = None if fields["gen"] == "-" else int(fields["gen"])
        except (KeyError, ValueError):
            return None
        if not ID_FORMAT.match(ident) or marked not in ("yes", "no"):
            return None
        return cls(ident, dev, ino, gen, marked == "yes")


def read_record(state_fd: int) -> Identity | bool | None:
    """The state folder's record; False when it has none (new, or made before records existed); None when it is
    damaged."""
    try:
        text = _read_small(state_fd, RECORD_FILE)
    except FileNotFoundError:
        return False
    except OSError:
        return None
    return Identity.parse(text) if text is not None else None


def mismatch(state_fd: int, root_fd: int, root: Path) -> str | None:
    """Why the tree at `root_fd` is not the one the state folder belongs to (for the notice); None when it is, or
    when the folder records no tree yet."""
    record = read_record(state_fd)
    if not isinstance(record, Identity):
        return None if record is False else "its identity record is damaged"
    st = os.fstat(root_fd)
    gen = generation(root_fd)
    if st.st_ino != record.ino or (None not in (gen, record.gen) and gen != record.gen):
        return f"{root} was re-created"
    if not record.marked:
        return None if st.st_dev == record.dev else f"{root} is on another device"
    mark = read_mark(root_fd)
    if mark is None:
        return f"{root}/{STATE_DIR}/{MARK_FILE} is missing: the folder was re-created or its {STATE_DIR}/ removed"
    if mark != record.id:
        return f"{root}/{STATE_DIR}/{MARK_FILE} names another workspace: the folder was re-created from a copy"
    return None


def generation(fd: int) -> int | None:
    """The inode's generation (a file system that reuses inode numbers gives a reused one a new generation); None
    where the file system does not report one (tmpfs)."""
    buf = bytearray(8)
    try:
        fcntl.ioctl(fd, FS_IOC_GETVERSION, buf)
    except OSError:
        return None
    return int.from_bytes(buf, sys.byteorder)


def read_mark(root_fd: int) -> str | None:
    """The id in the tree's `.stringsh/workspace-id`; None when there is none or it is not an id."""
    try:
        local = atomic.open_folders(root_fd, [STATE_DIR], create=False)
    except OSError:
        return None
    try:
        return _mark_in(local)
    finally:
        os.close(local)


def stamp(state_fd: int, root_fd: int, local_fd: int | None) -> None:
    """Record which tree the state folder belongs to, unless it already does: the id the tree's `.stringsh/`
    (`local_fd`, None when it cannot be written) holds, else a new one written there. A record made without an id
    in the tree gets one as soon as the tree can take it. Processes stamping at once take turns (a lock on the
    state folder), and a file is created whole or not at all."""
    fcntl.flock(state_fd, fcntl.LOCK_EX)
    try:
        record = read_record(state_fd)
        if record is None or (isinstance(record, Identity) and (record.marked or local_fd is None)):
            return  # a damaged record is moved aside by `mismatch`, never overwritten here
        st = os.fstat(root_fd)
        proposed = record.id if isinstance(record, Identity) else os.urandom(16).hex()
        ident = _ensure_mark(local_fd, proposed) if local_fd is not None else None
        identity = Identity(ident or proposed, st.st_dev, st.st_ino, generation(root_fd), ident is not None)
        _replace(state_fd, RECORD_FILE, identity.text())
    finally:
        fcntl.flock(state_fd, fcntl.LOCK_UN)


def move_aside(parent_fd: int, name: str) -> str:
    """Rename the state folder `name` to `<name>.replaced-<UTC time>` (kept, never opened again); its new name.
    The caller holds the lock on `parent_fd` that every mover takes, so the name checked free stays free."""
    base = f"{name}{ASIDE}{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}"
    aside, n = base, 1
    while _exists(parent_fd, aside):
        n += 1
        aside = f"{base}-{n}"
    os.rename(name, aside, src_dir_fd=parent_fd, dst_dir_fd=parent_fd)
    return aside


# -- small files, written whole ---------------------------------------------------------------------------


def _ensure_mark(local_fd: int, proposed: str) -> str | None:
    """The id the tree's mark holds after this: the one already there (another path's state folder may have left
    it: the folder was moved), else `proposed`, written; None when no mark can be left."""
    found = _mark_in(local_fd)
    if found is not None:
        return found
    try:
        if _exists(local_fd, MARK_FILE):
            os.unlink(MARK_FILE, dir_fd=local_fd)  # a planted link or a damaged file: ours to replace
        _replace(local_fd, MARK_FILE, f"{proposed}\n")
    except OSError:
        return None
    return proposed


def _mark_in(local_fd: int) -> str | None:
    try:
        text = _read_small(local_fd, MARK_FILE)
    except OSError:
        return None
    ident = (text or "").strip()
    return ident if ID_FORMAT.match(ident) else None


def _read_small(dir_fd: int, name: str) -> str | None:
    """A small regular file's text, never through a link or from a FIFO; None when it is too long or not text."""
    fd = atomic.open_state_file(dir_fd, name, os.O_RDONLY)
    try:
        data = os.read(fd, READ_LIMIT + 1)
    finally:
        os.close(fd)
    if len(data) > READ_LIMIT:
        return None
    try:
        return data.decode("ascii")
    except UnicodeDecodeError:
        return None


def _replace(dir_fd: int, name: str, text: str) -> None:
    tmp = _write_temp(dir_fd, name, text)
    try:
        os.rename(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        os.unlink(tmp, dir_fd=dir_fd)
        raise


def _write_temp(dir_fd: int, name: str, text: str) -> str:
    tmp = f".{name}.{os.urandom(6).hex()}.tmp"
    fd = os.open(tmp, atomic.TEMP_FLAGS, 0o600, dir_fd=dir_fd)
    try:
        os.write(fd, text.encode("ascii"))
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        os.unlink(tmp, dir_fd=dir_fd)
        raise
    os.close(fd)
    return tmp


def _exists(dir_fd: int, name: str) -> bool:
    try:
        os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return False
        raise
    return True

