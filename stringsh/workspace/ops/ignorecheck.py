"""The check beside ripgrep's walk (rgwalk.py): rg opens each folder's `.gitignore` by name, so one that is a
symlink would have it read a file outside the workspace as rules (which files it hid would tell what the file
holds), and a FIFO would hang it. The walk reads only regular files; rg's answer is taken only when every folder it
enters has no `.gitignore` or a regular one.

The check lists the folders rg enters, as rg does, on a thread of its own while rg walks. A folder listed once
that had no `.gitignore` is remembered by identity (device, inode, modification and change time) with the names of
its folders, when its change time was already `RACY_NS` old then. The next check of an unchanged folder is one
stat by path, with no open and no listing. Adding, removing or renaming any name in a folder (a `.gitignore` link
planted, a folder swapped for a link) moves both of its times. The change time cannot be set back, so a folder
changed since is listed again. A change in the same clock tick as the listing could leave the times as they were;
the age rule keeps such a folder out of memory. The stat by path follows a link only where a folder on the way
was swapped for one during the check. Its parent was checked unchanged just before, the same race rg's own walk
has with the check.
"""

from __future__ import annotations

import os
import stat
import threading
import time
from time import time_ns as wall_ns  # (the clock the age rule reads: tests move it on)
from typing import TYPE_CHECKING

from stringsh.workspace.ops.gitignore import GITIGNORE, Ignore, gitignore_at, ignored
from stringsh.workspace.ops.walk import IS_FOLDER, SKIPPED_DIRS
from stringsh.workspace.paths import DIR_FLAGS, STATE_DIR, TEMP_PREFIX

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace
    from stringsh.workspace.ops.rgwalk import Listing
    from stringsh.workspace.ops.walk import Start

#: How old a folder's change time must be for its listing to be remembered (a later change moves it for sure).
RACY_NS = 2_000_000_000
#: Folders remembered at most; past this many the memory starts again.
MAX_REMEMBERED = 1 << 16
#: (device, inode) of a folder listed with no `.gitignore` -> (its modification and change times, its folders).
_SETTLED: dict[tuple[int, int], tuple[int, int, tuple[str, ...]]] = {}


class IgnoreCheck:
    """plain_ignore_files in a thread beside rg (it reads the same folder listings): rg's answer is taken only
    when no folder it entered has a `.gitignore` that is not a regular file (`passed`)."""

    def __init__(self, ws: Workspace, start: Start, listing: Listing) -> None:
        self.ok = False
        fd = os.dup(start.fd)
        self.thread = threading.Thread(target=self._run, args=(ws, fd, start.rel, listing), daemon=True)
        self.thread.start()

    def _run(self, ws: Workspace, fd: int, rel: str, listing: Listing) -> None:
        try:
            self.ok = plain_ignore_files(ws, fd, rel, listing.deadline)
        finally:
            if not self.ok:
                listing.cancel()  # a FIFO as .gitignore would hold rg until the deadline

    def passed(self) -> bool:
        self.thread.join()
        return self.ok


class Leaves:
    """Folders known to hold no folder without reading their listing (as find and fts know them): where a folder's
    link count is two plus its subfolders, one with two has none. Trusted only on the file system of the first
    folder listed, and only once every folder listed there had that count (checked on each; one that had not turns
    it off for good): a file system that does not keep the count (btrfs and overlayfs say 1) is always listed."""

    __slots__ = ("device", "trusted")

    def __init__(self) -> None:
        self.device: int | None = None
        self.trusted: bool | None = None

    def known(self, st: os.stat_result) -> bool:
        """Whether the folder with this stat surely holds no folder."""
        return self.trusted is True and st.st_dev == self.device and st.st_nlink == 2

    def learn(self, st: os.stat_result, folders: int) -> None:
        """A folder listed, with this stat and that many folders in it."""
        if self.device is None:
            self.device = st.st_dev
        if st.st_dev == self.device and self.trusted is not False:
            self.trusted = st.st_nlink == 2 + folders


def remembered(st: os.stat_result) -> tuple[str, ...] | None:
    """The folders of the folder with this stat, as listed before, when it had no `.gitignore` and is unchanged."""
    known = _SETTLED.get((st.st_dev, st.st_ino))
    if known is None or known[0] != st.st_mtime_ns or known[1] != st.st_ctime_ns:
        return None
    return known[2]


def _remember(st: os.stat_result, folders: list[str]) -> None:
    if st.st_ctime_ns >= wall_ns() - RACY_NS:
        return  # changed too lately: a change in the same clock tick would leave its times as they are
    if len(_SETTLED) >= MAX_REMEMBERED:
        _SETTLED.clear()
    _SETTLED[st.st_dev, st.st_ino] = (st.st_mtime_ns, st.st_ctime_ns, tuple(folders))


def plain_ignore_files(ws: Workspace, fd: int, rel: str, deadline: float) -> bool:
    """Whether every folder ripgrep enters below `fd` (the folder `rel`; closed here) has no `.gitignore` or a
    regular one. The folders are those the walk enters (folder links, `.git/`, temp and engine folders, secrets and
    ignored folders left out: rg enters none of them, or, temp and secret folders, none whose rules could change
    what is shown: rgwalk.Visible drops all it lists there). A folder remembered unchanged is one stat by its path
    below `fd`; another is opened, its `.gitignore` is one lstat, and its listing is read only for its folders
    (picked out in C), not at all where the link count says it has none (`Leaves`). False as well past the
    deadline."""
    root_prefix = ws.confiner.route(rel)[1] if ":" in rel else ""
    denied_leaf = ws.confiner.matcher.denied_leaf
    leaves = Leaves()
    start = "" if rel == "." else rel + "/"
    # (the folder's path below `fd`, "" for `fd` itself; its root-relative path with a `/`; the rules above it)
    stack: list[tuple[str, str, list[tuple[int, Ignore]]]] = [("", start, [])]
    try:
        while stack:
            below, prefix, chain = stack.pop()
            if time.monotonic() > deadline:
                return False
            try:
                here = os.stat(below, dir_fd=fd, follow_symlinks=False) if below else os.fstat(fd)
            except OSError:
                continue  # gone, or unreadable: rg cannot enter it either
            if not stat.S_ISDIR(here.st_mode):
                continue  # swapped for a file or a link since its folder was listed: rg does not enter it
            folders = remembered(here)
            if folders is None:
                listed = _listed(fd, below, here, leaves)
                if listed is None:
                    continue
                if listed is False:
                    return False
                folders, spec = listed
                if spec is not None:
                    chain = [*chain, (len(prefix), spec)]
            for name in folders:
                sub = prefix + name
                inner = sub[len(root_prefix):].lstrip("/") if root_prefix else sub
                if (name in SKIPPED_DIRS or name.startswith(TEMP_PREFIX) or inner == STATE_DIR
                        or denied_leaf(inner) or (chain and ignored(chain, sub, True))):
                    continue
                stack.append((below + name + "/", sub + "/", chain))
        return True
    finally:
        os.close(fd)


def _listed(fd: int, below: str, here: os.stat_result, leaves: Leaves
            ) -> tuple[tuple[str, ...] | list[str], Ignore | None] | bool | None:
    """A folder not remembered, opened (without following a link in its last name) and listed: its folders and
    its `.gitignore`'s rules; False when that `.gitignore` is not a regular file (or cannot be looked at), None when
    the folder cannot be read (rg cannot read it either). Remembered when it has no `.gitignore`."""
    try:
        dir_fd = os.open(below, DIR_FLAGS, dir_fd=fd) if below else fd
    except OSError:
        return None
    try:
        here = os.fstat(dir_fd) if below else here  # the folder opened, which is the one remembered
    except OSError:
        os.close(dir_fd)
        return None
    try:
        try:
            if leaves.known(here):
                folders: list[str] = []  # no folder in it: its listing need not be read
            else:
                with os.scandir(dir_fd) as listing:  # the folders, picked in C: most entries are files
                    folders = [entry.name for entry in filter(IS_FOLDER, listing)]
                leaves.learn(here, len(folders))
        except OSError:
            return None
        try:  # one lstat, not a look at every name
            ignore = os.stat(GITIGNORE, dir_fd=dir_fd, follow_symlinks=False)
        except (FileNotFoundError, NotADirectoryError):
            _remember(here, folders)
            return folders, None
        except OSError:
            return False
        if not stat.S_ISREG(ignore.st_mode):
            return False
        return folders, gitignore_at(dir_fd)
    finally:
        if dir_fd != fd:
            os.close(dir_fd)
