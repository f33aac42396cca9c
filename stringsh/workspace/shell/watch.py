"""The end-of-command check of a sandboxed shell: protected paths that appeared after it started are removed.

Read-only binds (binds.py) only cover paths that exist when the sandbox starts. `git init` inside the shell makes
a `.git` nobody bound, and a hook written there would run outside the sandbox at the user's next commit. So after
every command, before the next one (a background job may write in between) and when the shell closes, the
stringsh process looks at each protected path that was missing at start and removes what a command made there:
`.git/hooks/*` except git's inert `*.sample` files, a `.git/config` with anything but the keys `git init`,
`git remote` and `git branch` write, `.git/config.worktree`, `.git/commondir`, `.git/modules`,
`.git/worktrees`, `.gitmodules`, `stringsh.toml`, and a `.git` that is a symlink or a `gitdir:` file. A watched
path that was a symlink at start is put back when a command retargets or replaces it, and removed when it was
dangling and a command made what it leads to (read-only binds cannot cover a missing target). Each removal adds
a `note:` line to the reply. Paths that existed at start are bound read-only and never touched
here, so the user's own edits outside the shell are safe; one that appears while the shell lives is removed even
when the user made it outside (the note says so).

Every lookup goes through directory descriptors opened with `O_NOFOLLOW`, so a command that swaps a folder for a
symlink cannot make this check delete anything outside the folder it watches.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import NamedTuple

from stringsh.workspace.atomic import open_folders
from stringsh.workspace.paths import DIR_FLAGS
from stringsh.workspace.protected import git_dir_by_kinds
from stringsh.workspace.shell.result import ShellResult

#: Watched when missing at start; `.git` first, so a `.git` that is not a real folder goes before its contents.
WATCHED = (".git", ".git/hooks", ".git/config", ".git/config.worktree", ".git/commondir", ".git/modules",
           ".git/worktrees", ".gitmodules", "stringsh.toml")
#: `.git/config` keys that run nothing: what `git init`, `git remote add` and `git branch -u` write.
SAFE_CONFIG = re.compile(
    r"^(core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks)"
    r"|extensions\.objectformat|user\.(name|email)|remote\..+\.(url|fetch)|branch\..+\.(remote|merge))$"
)
SECTION = re.compile(r'^\[([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\\n]|\\.)*)")?\]$')
ENTRY = re.compile(r"^([A-Za-z][A-Za-z0-9-]*)\s*(=.*)?$")
MAX_CONFIG = 64 * 1024
#: Entries inside any git dir that decide what git runs (nested repositories and git dirs not named `.git` too).
GIT_CODE = ("hooks", "config", "config.worktree", "commondir", "modules", "worktrees")
#: Not entered by the git dir scan: stringsh's own state.
SKIP_SCAN = frozenset({".stringsh"})


class GitDir(NamedTuple):
    """A git dir found under a writable folder (`rel` to it, "" for the folder itself); `is_dir` False: a `.git`
    file (`gitdir: …`) or symlink, which points git elsewhere."""

    rel: str
    is_dir: bool


def looks_like_git_dir(names: set[str], folder: str) -> bool:
    """Whether git takes `folder` (holding `names`) for a git dir: the engine's rule (protected.git_dir_by_kinds:
    a symlinked `HEAD` counts, a bare repository is one, a `commondir` stands for `objects` and `refs`)."""

    def kind(name: str) -> int:
        if name not in names:
            return 0
        try:
            return stat.S_IFMT(os.lstat(os.path.join(folder, name)).st_mode)
        except OSError:
            return 0

    def present(name: str) -> bool:
        return name in names and os.path.exists(os.path.join(folder, name))

    return git_dir_by_kinds(kind, present)


def git_dirs(folder: Path, limit: int) -> list[GitDir]:
    """Every `.git` (folder, file or link) and every folder that looks like a git dir under `folder`, at most
    `limit` entries walked; a git dir is not entered, nor a symlinked folder."""
    return TreeWalk(folder).walk(limit)


#: A folder whose modification or change time is this close to the walk that listed it is listed again next time:
#: file times tick coarsely (a few ms), so an entry made in the same tick as the listing leaves both times as they
#: were read.
RACY_NS = 2_000_000_000
#: The entries of a git dir that decide whether a folder looks like one: a link among them is followed by that
#: test, and its target can change without the folder changing, so such a folder is listed every time.
GIT_DIR_NAMES = frozenset({"HEAD", "objects", "refs", "commondir"})


class _Listing(NamedTuple):
    """What one listing of a folder told the walk, kept while the folder's times and inode stay as they were."""

    key: tuple[int, int, int, int]  # device, inode, modification and change times (ns) before it was listed
    count: int  # entries, counted against the walk's limit
    git_like: bool
    #: In listing order: (name, is_dir, is_dot_git); only `.git` entries and real folders.
    items: tuple[tuple[str, bool, bool], ...]
    racy: bool


class TreeWalk:
    """`git_dirs` of one folder, again and again: a folder is listed again only when it changed since its last
    listing. Any entry made, removed or renamed in a folder moves the folder's change time, which no command can
    set back (a modification time can be), so a walk that finds every folder as it was costs a stat per folder
    instead of a listing and a look at every file: after each command of each shell on a large tree."""

    def __init__(self, folder: Path) -> None:
        self.folder = str(folder)
        self._listings: dict[str, _Listing] = {}

    def walk(self, limit: int) -> list[GitDir]:
        found: list[GitDir] = []
        listings: dict[str, _Listing] = {}
        horizon = time.time_ns() - RACY_NS
        stack = [(self.folder, "")]
        seen = 0
        while stack and seen <= limit:
            path, prefix = stack.pop()
            listing = self._listing(path, prefix, horizon)
            if listing is None:
                continue
            listings[path] = listing
            seen += listing.count
            if prefix and listing.git_like:
                found.append(GitDir(prefix[:-1], True))
                continue
            for name, is_dir, dot_git in listing.items:
                if dot_git:
                    found.append(GitDir(f"{prefix}{name}", is_dir))
                else:
                    stack.append((os.path.join(path, name), f"{prefix}{name}/"))
        self._listings = listings  # folders gone or no longer reached are forgotten
        return found

    def _listing(self, path: str, prefix: str, horizon: int) -> _Listing | None:
        try:
            st = os.stat(path, follow_symlinks=False)
        except OSError:
            return None
        if not stat.S_ISDIR(st.st_mode):
            return None
        key = (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)
        known = self._listings.get(path)
        if known is not None and known.key == key and not known.racy:
            return known
        try:
            entries = list(os.scandir(path))
        except OSError:
            return None
        items: list[tuple[str, bool, bool]] = []
        linked = False
        for entry in entries:
            try:
                real_dir = entry.is_dir(follow_symlinks=False)
                linked = linked or (entry.name in GIT_DIR_NAMES and entry.is_symlink())
            except OSError:
                continue
            if entry.name == ".git":
                items.append((entry.name, real_dir, True))
            elif real_dir and f"{prefix}{entry.name}" not in SKIP_SCAN:
                items.append((entry.name, True, False))
        git_like = bool(prefix) and looks_like_git_dir({e.name for e in entries}, path)
        racy = linked or max(st.st_mtime_ns, st.st_ctime_ns) >= horizon
        return _Listing(key, len(entries), git_like, tuple(items), racy)


class _Scan:
    """The last walk of one folder by any shell of this process: when it started, what it found."""

    def __init__(self, folder: Path) -> None:
        self.lock = threading.Lock()  # held for a walk: one walk at a time per folder, the others wait for it
        self.started = float("-inf")
        self.found: list[GitDir] = []
        self.tree = TreeWalk(folder)


_SCANS: dict[tuple[str, int], _Scan] = {}
_SCANS_LOCK = threading.Lock()


def shared_git_dirs(folder: Path, limit: int, since: float) -> list[GitDir]:
    """`git_dirs(folder, limit)` as found by a walk that started at `since` (time.monotonic()) or later: every
    shell of this process on the same folder shares the walks, so a check sees everything made before it asked,
    while many shells (an MCP server's sessions, a daemon's topics) walk a large tree once, not once each; and a
    walk lists only the folders changed since the last (TreeWalk)."""
    with _SCANS_LOCK:
        scan = _SCANS.get((str(folder), limit))
        if scan is None:
            scan = _SCANS[str(folder), limit] = _Scan(folder)
    with scan.lock:
        if scan.started < since:
            started = time.monotonic()
            scan.found, scan.started = scan.tree.walk(limit), started
        return list(scan.found)


def benign_config(data: bytes) -> bool:
    """Whether a git config holds only keys that run nothing (anything unusual counts as not benign)."""
    if len(data) > MAX_CONFIG:
        return False
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    section = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.endswith("\\"):
            return False
        head = SECTION.match(line)
        if head:
            section = head.group(1).lower() + (f".{head.group(2)}" if head.group(2) is not None else "")
            continue
        entry = ENTRY.match(line)
        if section is None or entry is None or not SAFE_CONFIG.match(f"{section}.{entry.group(1).lower()}"):
            return False
    return True


#: How long ago another shell's look at a protected path may be taken by a quick poll (maybe_there): a path made
#: meanwhile is swept at most this much later than by a look of the poll's own.
QUICK_SHARE = 0.2
_LOOKS: dict[tuple[str, str], tuple[float, bool]] = {}


def maybe_there(folder: Path, rel: str, since: float) -> bool:
    """Whether something may be at `folder/rel`, as looked at `since` (time.monotonic()) or later by any shell of
    this process: one `lstat` where every shell's quick poll opened the folders on the way. A link on the way is
    followed here, so this can say yes where the sweep (which never follows one) finds nothing; never the reverse:
    it only spares the sweep paths that are absent."""
    key = (str(folder), rel)
    known = _LOOKS.get(key)
    if known is not None and known[0] >= since:
        return known[1]
    looked = time.monotonic()  # before the look: a path made after it is left to a later look
    there = os.path.lexists(os.path.join(folder, rel))
    _LOOKS[key] = (looked, there)
    return there


class ProtectedWatch:
    """Remembers which protected paths each writable folder lacked at start, and which were symlinks (a link can
    be retargeted, and a dangling one written through); `check` puts them back."""

    def __init__(self, folders: Sequence[Path], root: Path, limit: int = 500_000) -> None:
        self.root = root
        self.limit = limit
        self.absent: dict[Path, list[str]] = {}
        self.links: dict[Path, list[Link]] = {}
        #: Per folder, the nested git dirs' protected entries (and nested `.git` files) there at start: bound
        #: read-only (binds.py), so never swept; everything else under a git dir found later is.
        self.present: dict[Path, set[str]] = {}
        #: Per folder, the nested git dirs the last full scan found (what a quick `check` looks at).
        self.known: dict[Path, list[GitDir]] = {}
        for folder in map(Path, folders):
            self.absent[folder], self.links[folder] = [], []
            self.known[folder] = self._nested(folder, time.monotonic())
            self.present[folder] = {rel for rel in self._rels(self.known[folder]) if os.path.lexists(folder / rel)}
            for rel in WATCHED:
                path = folder / rel
                if not os.path.lexists(path):
                    self.absent[folder].append(rel)
                elif os.path.islink(path):
                    with contextlib.suppress(OSError):
                        self.links[folder].append(Link(rel, os.readlink(path), not os.path.exists(path)))

    def _nested(self, folder: Path, since: float) -> list[GitDir]:
        """The git dirs under `folder` but its own `.git` (which `WATCHED` covers), walked at `since` or later."""
        return [g for g in shared_git_dirs(folder, self.limit, since) if g.rel != ".git"]

    @staticmethod
    def _rels(found: Sequence[GitDir]) -> list[str]:
        rels: list[str] = []
        for git in found:
            if git.is_dir:
                rels += [f"{git.rel}/{name}" if git.rel else name for name in GIT_CODE]
            else:
                rels.append(git.rel)
        return rels

    def check(self, when: str = "by the command", *, scan: bool = True, stale: float = 0.0) -> list[str]:
        """Remove what appeared; one note line per removal, naming the path as the user knows it. `scan`: look
        for git dirs made since the last scan (a walk of the folder); else only the ones known (a quick poll,
        which skips the paths any shell of this process found absent within `QUICK_SHARE` seconds).
        `stale`: how many seconds before this call the walk may have started (another shell's, shared_git_dirs);
        0 (a command's checks): a walk that starts now or is waited for."""
        notes: list[str] = []
        now = time.monotonic()
        asked = now - stale
        for folder, watched in self.absent.items():
            links = self.links[folder]
            if scan:
                self.known[folder] = self._nested(folder, asked)
            present = self.present[folder]
            missing = [*watched, *(rel for rel in self._rels(self.known[folder]) if rel not in present)]
            if not scan:
                missing = [rel for rel in missing if maybe_there(folder, rel, now - QUICK_SHARE)]
            if not missing and not links:
                continue
            try:
                fd = os.open(folder, DIR_FLAGS & ~os.O_NOFOLLOW)
            except OSError:
                continue
            try:
                for rel in missing:
                    for name in _sweep(fd, rel):
                        notes.append(f"note: removed {self._shown(folder, name)} written {when}: protected path")
                for link in links:
                    done = _relink(fd, link)
                    if done:
                        notes.append(f"note: {done} {self._shown(folder, link.rel)} changed {when}: protected path")
            finally:
                os.close(fd)
        return notes

    def _shown(self, folder: Path, rel: str) -> str:
        path = folder / rel
        return path.relative_to(self.root).as_posix() if path.is_relative_to(self.root) else str(path)


class Link(NamedTuple):
    """A protected path that was a symlink at start: its target, and whether that target was missing."""

    rel: str
    target: str
    dangling: bool


def _relink(root_fd: int, link: Link) -> str | None:
    """Put a retargeted or replaced link back ("restored"); remove one that was dangling and now leads to something
    a command made ("removed"); None when it is as it was."""
    with _parent_of(root_fd, link.rel) as found:
        if found is None:
            return None
        parent, name = found
        try:
            st: os.stat_result | None = os.stat(name, dir_fd=parent, follow_symlinks=False)
            same = stat.S_ISLNK(st.st_mode) and os.readlink(name, dir_fd=parent) == link.target
        except OSError:
            st, same = None, False
        if same and not (link.dangling and _resolves(parent, name)):
            return None
        if st is not None and not _remove(parent, name, stat.S_ISDIR(st.st_mode)):
            return None
        if link.dangling:
            return "removed"
        with contextlib.suppress(OSError):
            os.symlink(link.target, name, dir_fd=parent)
        return "restored"


@contextlib.contextmanager
def _parent_of(root_fd: int, rel: str) -> Iterator[tuple[int, str] | None]:
    """(the folder holding `rel`, opened without following links, and its last name); None when a folder on the
    way is missing or not a real folder."""
    *dirs, name = rel.split("/")
    try:
        parent = open_folders(root_fd, dirs, create=False)
    except OSError:
        yield None
        return
    try:
        yield parent, name
    finally:
        os.close(parent)


def _resolves(parent: int, name: str) -> bool:
    try:
        os.stat(name, dir_fd=parent)
    except OSError:
        return False
    return True


def _sweep(root_fd: int, rel: str) -> list[str]:
    """Remove what a command made at `rel` (relative to `root_fd`); the root-relative names removed."""
    with _parent_of(root_fd, rel) as found:
        if found is None:
            return []  # missing, or not a real folder: its own entry (`.git`) is judged on its own
        parent, name = found
        try:
            st = os.stat(name, dir_fd=parent, follow_symlinks=False)
        except OSError:
            return []
        is_dir = stat.S_ISDIR(st.st_mode)
        if name == ".git" and is_dir:
            return []  # `git init`: allowed; its contents are judged entry by entry
        if name == "hooks" and is_dir:
            return [f"{rel}/{hook}" for hook in _sweep_hooks(parent, name)]
        if name == "config" and stat.S_ISREG(st.st_mode) and benign_config(_read(parent, name)):
            return []
        return [rel] if _remove(parent, name, is_dir) else []


def _sweep_hooks(parent: int, name: str) -> list[str]:
    try:
        fd = os.open(name, DIR_FLAGS, dir_fd=parent)
    except OSError:
        return []
    removed = []
    try:
        for hook in sorted(os.listdir(fd)):
            with contextlib.suppress(OSError):
                st = os.stat(hook, dir_fd=fd, follow_symlinks=False)
                if hook.endswith(".sample") and stat.S_ISREG(st.st_mode):
                    continue  # git never runs these
                if _remove(fd, hook, stat.S_ISDIR(st.st_mode)):
                    removed.append(hook)
    finally:
        os.close(fd)
    return removed


def _read(parent: int, name: str) -> bytes:
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=parent)
    except OSError:
        return b"\\"  # unreadable: not benign
    try:
        return os.read(fd, MAX_CONFIG + 1)
    finally:
        os.close(fd)


def _remove(parent: int, name: str, is_dir: bool) -> bool:
    """Whether `name` is gone; `rmtree` with a `dir_fd` never follows a symlink inside the tree."""
    try:
        if is_dir:
            shutil.rmtree(name, dir_fd=parent)
        else:
            os.unlink(name, dir_fd=parent)
    except OSError:
        return False
    return True


class Poller:
    """Runs the watch every `INTERVAL` seconds while the persistent shell sits idle between commands.

    A background job can write a hook after its command returned; checked only when the next command arrives,
    the hook would sit there for as long as the user waits, ready for their next commit. Killing leftover jobs
    instead would break servers started in the background, so a thread owned by the session sweeps instead
    (a quick check of the paths known; a full walk for new git dirs every `SCAN_EVERY` polls). It pauses while a
    command runs: the session's own checks around the command say "by the command" and a sweep mid-command would
    change what the command prints. Removals wait in `notes` for the next reply.
    """

    INTERVAL = 0.2
    SCAN_EVERY = 25
    #: A poll's full walk, and the look before a command, may be one another shell of this process started up to
    #: this long before (shared_git_dirs): many shells on one tree then walk it about once a second together, not
    #: each on its own, and a git dir made meanwhile is swept at most this much later (by the check after the
    #: command at the latest). The check after a command always takes a walk that started after the command ended.
    SHARE_SECONDS = 1.0

    def __init__(self, watch: ProtectedWatch) -> None:
        self.watch = watch
        self.notes: list[str] = []
        self._lock = threading.Lock()
        self._active = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None:
            self._stop.clear()
            self._active = True
            self._thread = threading.Thread(target=self._loop, name="stringsh-watch", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Stop the thread (before a fork, and when the shell closes); what it removed stays in `notes`."""
        thread, self._thread = self._thread, None
        if thread is not None:
            self._stop.set()
            thread.join()

    def before(self, when: str) -> list[str]:
        """Pause for a command: what was removed while idle, and what the check finds now."""
        with self._lock:
            self._active = False
            notes, self.notes = [*self.notes, *self.watch.check(when, stale=self.SHARE_SECONDS)], []
        return notes

    def after(self) -> list[str]:
        """The end-of-command check; polling resumes."""
        with self._lock:
            try:
                return self.watch.check()
            finally:
                self._active = True

    def resume(self) -> None:
        with self._lock:
            self._active = True

    def _loop(self) -> None:
        polls = 0
        while not self._stop.wait(self.INTERVAL):
            polls += 1
            with self._lock:
                if self._active:
                    self.notes += self.watch.check("since the last command", scan=polls % self.SCAN_EVERY == 0,
                                                   stale=self.SHARE_SECONDS)


def add_notes(result: ShellResult, notes: list[str]) -> ShellResult:
    """The removals go after the output, where the command's own last lines are: they say what it did not keep."""
    if notes:
        result.output = "\n".join([result.output, *notes]) if result.output else "\n".join(notes)
    return result
