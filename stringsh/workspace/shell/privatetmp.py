"""The sandbox's private /tmp, backed by a fresh host folder, so what a command leaves there is named, not lost
without a word (`!touch /tmp/x/probe` exited 0 and the file never reached the real /tmp).

bubblewrap binds `<container>/tmp` onto `/tmp`; after each command the stringsh process walks it (through
descriptors opened with `O_NOFOLLOW`, never following a link the command planted, at most WALK_LIMIT entries) and
names what was written there since the last look: a new folder once, with a trailing `/`, a new or changed file by
its path, the first SHOWN of them and how many more. The folder lives as long as the shell (one command for
`/exec` and the JSON tools' `bash`) and is removed when it ends: on close, restart, a dropped session, the
interpreter's exit, and for a one-shot run in a `finally`.

Safety: the container is made by `mkdtemp` (0700, a fresh random name) in the real /tmp, which the sandbox's own
/tmp covers, or else the system's temp folder, hidden in the sandbox behind an empty folder; never inside a root
the sandbox binds (a write to /tmp would land in the workspace). Its `tmp/` child (0755, as bubblewrap's own
tmpfs) is what the sandbox sees, which other users cannot reach through the 0700 parent. The mount points
bubblewrap makes there (a root that lives under /tmp, the shell's command file, masks in a home under /tmp) are
read from the sandbox's own command line and never named.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

from stringsh.escapes import shown_name
from stringsh.workspace.paths import DIR_FLAGS

#: Where the folder is seen inside the sandbox.
MOUNT = "/tmp"
#: Entries walked after a command; past it nothing is named (never a wrong note).
WALK_LIMIT = 20_000
#: Folders walked below /tmp: what is written deeper is named by the folder above it when that is new.
MAX_DEPTH = 32
#: Paths a note names before `and N more`.
SHOWN = 3
#: When what was written there goes: a shell's /tmp lasts as long as the shell, a one-shot's as its command.
UNTIL_SHELL = "when the shell ends"
UNTIL_COMMAND = "when the command ended"
#: Where the sandbox's view is drawn and explained.
SEE = 'docs/security.md, "What a sandboxed command sees outside the workspace"'
#: bubblewrap options and how many values each takes; a mount option's last value is where it mounts.
ARITY = {"--bind": 2, "--ro-bind": 2, "--dev-bind": 2, "--bind-try": 2, "--ro-bind-try": 2, "--dev-bind-try": 2,
         "--symlink": 2, "--tmpfs": 1, "--dev": 1, "--proc": 1, "--mqueue": 1, "--dir": 1, "--remount-ro": 1,
         "--chdir": 1, "--cap-drop": 1, "--cap-add": 1, "--perms": 1, "--size": 1}
MOUNTS = frozenset({"--bind", "--ro-bind", "--dev-bind", "--bind-try", "--ro-bind-try", "--dev-bind-try",
                    "--symlink", "--tmpfs", "--dev", "--proc", "--mqueue", "--dir", "--remount-ro"})
#: What a walk keeps of an entry: its type, inode, size and modification time (a folder: type and inode).
Signature = tuple[int, int, int, int]


class PrivateTmp:
    """One sandbox's /tmp on the host: made by `make`, bound by `bind_args`, named by `note`, gone by `remove`."""

    def __init__(self, container: Path) -> None:
        self.container = container
        self.folder = container / "tmp"
        self._mounts: frozenset[str] = frozenset()
        self._seen: dict[str, Signature] | None = {}

    @classmethod
    def make(cls, roots: Sequence[Path]) -> PrivateTmp | None:
        """A fresh folder outside every root; None when there is no such place (the sandbox keeps a tmpfs)."""
        for base in _bases(roots):
            try:
                container = Path(tempfile.mkdtemp(prefix="stringsh-tmp-", dir=base))
                break
            except OSError:
                continue
        else:
            return None
        try:
            (container / "tmp").mkdir()
            os.chmod(container / "tmp", 0o755)
        except OSError:
            remove_tree(container)
            return None
        return cls(container)

    def bind_args(self) -> list[str]:
        """The folder as /tmp; a container outside the real /tmp (which /tmp covers) is hidden behind an empty
        read-only folder, so no sandbox reads another's /tmp."""
        hide = [] if self.container.is_relative_to(MOUNT) else [
            "--tmpfs", str(self.container), "--remount-ro", str(self.container)]
        return ["--bind", str(self.folder), MOUNT, *hide]

    def mounted(self, argv: Sequence[str]) -> None:
        """Read the sandbox's command line for the mount points bubblewrap makes in the folder (never named)."""
        self._mounts = frozenset(mount_points(argv))

    def note(self, until: str) -> str | None:
        """The note naming what was written since the last look (`until`: when it goes), or None."""
        paths = self.written()
        if not paths:
            return None
        shown = ", ".join(paths[:SHOWN]) + (f" and {len(paths) - SHOWN} more" if len(paths) > SHOWN else "")
        return (f"note: the sandbox's /tmp is the shell's own: written there, not to the real /tmp, and gone {until}:"
                f" {shown} ({SEE})")

    def written(self) -> list[str]:
        """Paths (as the sandbox sees them) new or changed since the last call, a new folder once, sorted."""
        now = scan(self.folder, self._mounts)
        before, self._seen = self._seen, now
        if now is None or before is None:
            return []
        new = sorted(rel for rel, sign in now.items() if before.get(rel) != sign)
        folders: set[str] = set()
        named: list[str] = []
        for rel in new:
            if any(parent in folders for parent in _parents(rel)):
                continue
            is_dir = stat.S_ISDIR(now[rel][0])
            if is_dir and rel in before:  # a folder that was there: only what is in it counts
                continue
            if is_dir:
                folders.add(rel)
            named.append(shown_name(f"{MOUNT}/{rel}" + ("/" if is_dir else "")))
        return named

    def remove(self) -> None:
        remove_tree(self.container)


def mount_points(argv: Sequence[str]) -> set[str]:
    """Every path under /tmp (relative to it) the sandbox mounts something on, with the folders leading to it."""
    points: set[str] = set()
    index = 1
    while index < len(argv) and argv[index] != "--":
        option = argv[index]
        count = ARITY.get(option, 0)
        if option in MOUNTS and index + count < len(argv):
            target = argv[index + count]
            if target.startswith(f"{MOUNT}/"):
                rel = target[len(MOUNT) + 1:].strip("/")
                points.add(rel)
                points.update(_parents(rel))
        index += 1 + count
    return points


def scan(folder: Path, skip: frozenset[str] = frozenset()) -> dict[str, Signature] | None:
    """Each entry under `folder` (relative path: signature) but those in `skip`, at most MAX_DEPTH folders deep;
    None when the walk could not finish (the folder gone, more than WALK_LIMIT entries). Each folder is opened in
    its parent's descriptor without following a link, so a folder a running command swaps for a link is not
    entered."""
    found: dict[str, Signature] = {}
    try:
        top = os.open(folder, DIR_FLAGS)
    except OSError:
        return None
    try:
        return found if _walk(top, "", skip, found) else None
    except OSError:
        return None
    finally:
        os.close(top)


def _walk(fd: int, prefix: str, skip: frozenset[str], found: dict[str, Signature]) -> bool:
    """Add what the open folder `fd` holds to `found`; False past WALK_LIMIT entries."""
    for entry in _entries(fd):
        rel = prefix + entry.name
        info = entry.stat(follow_symlinks=False)
        kind = stat.S_IFMT(info.st_mode)
        if rel not in skip:
            found[rel] = (kind, info.st_ino, 0, 0) if kind == stat.S_IFDIR else (
                kind, info.st_ino, info.st_size, info.st_mtime_ns)
            if len(found) > WALK_LIMIT:
                return False
        if kind == stat.S_IFDIR and rel.count("/") < MAX_DEPTH:
            try:
                inner = os.open(entry.name, DIR_FLAGS, dir_fd=fd)
            except OSError:
                continue  # made unreadable, or swapped for a link: what is in it is not named
            try:
                if not _walk(inner, rel + "/", skip, found):
                    return False
            finally:
                os.close(inner)
    return True


def _entries(fd: int) -> list[os.DirEntry[str]]:
    with os.scandir(fd) as entries:
        return list(entries)


def _parents(rel: str) -> Iterator[str]:
    """`a/b/c` → `a/b`, `a`."""
    while "/" in rel:
        rel = rel.rsplit("/", 1)[0]
        yield rel


def _bases(roots: Sequence[Path]) -> Iterator[str]:
    """Where the container may go: a temp folder not inside a root (the workspace would then hold what the sandbox
    writes to /tmp). The real /tmp first, which the sandbox's own /tmp covers, so no sandbox sees the folder."""
    resolved = [Path(root).resolve() for root in roots]
    seen: set[Path] = set()
    for candidate in (MOUNT, tempfile.gettempdir(), "/var/tmp"):
        path = Path(candidate).resolve()
        if path not in seen and os.path.isdir(path) and not any(path.is_relative_to(root) for root in resolved):
            seen.add(path)
            yield str(path)


def remove_tree(path: Path) -> None:
    """Remove the folder and all in it, also what a command made unreadable (a 0000 folder): each folder is made
    0700 again through descriptors that never follow a link, then removed (rmtree never follows one either)."""
    shutil.rmtree(path, ignore_errors=True)
    if not os.path.lexists(path):
        return
    _unlock(path)
    shutil.rmtree(path, ignore_errors=True)


def _unlock(path: Path) -> None:
    """Make every folder under `path` searchable and writable again (called once the sandbox has ended)."""
    stack = [path]
    while stack:
        folder = stack.pop()
        try:
            fd = os.open(folder, DIR_FLAGS)
        except OSError:
            continue
        try:
            for entry in _entries(fd):
                if entry.is_dir(follow_symlinks=False):
                    with contextlib.suppress(OSError, NotImplementedError):
                        os.chmod(entry.name, 0o700, dir_fd=fd, follow_symlinks=False)
                    stack.append(folder / entry.name)
        except OSError:
            pass
        finally:
            os.close(fd)
