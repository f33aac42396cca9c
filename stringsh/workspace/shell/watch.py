"""The end-of-command check of a sandboxed shell: protected paths that appeared after it started are removed.

Read-only binds (binds.py) only cover paths that exist when the sandbox starts. `git init` inside the shell makes
a `.git` nobody bound, and a hook written there would run outside the sandbox at the user's next commit. So after
every command, before the next one (a background job may write in between) and when the shell closes, the
stringsh process looks at each protected path that was missing at start and removes what a command made there:
`.git/hooks/*` except git's inert `*.sample` files, a `.git/config` with anything but the keys `git init`,
`git remote` and `git branch` write, `.git/config.worktree`, `.git/commondir`, `.git/modules`,
`.git/worktrees`, `.gitmodules`, `stringsh.toml`, and a `.git` that is a symlink or a `gitdir:` file. Each
removal adds a `note:` line to the reply. Paths that existed at start are bound read-only and never touched
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
from collections.abc import Sequence
from pathlib import Path

from stringsh.workspace.paths import DIR_FLAGS
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


class ProtectedWatch:
    """Remembers which protected paths each writable folder lacked at start; `check` removes them again."""

    def __init__(self, folders: Sequence[Path], root: Path) -> None:
        self.root = root
        self.absent = {Path(f): [rel for rel in WATCHED if not os.path.lexists(Path(f) / rel)] for f in folders}

    def check(self, when: str = "by the command") -> list[str]:
        """Remove what appeared; one note line per removal, naming the path as the user knows it."""
        notes: list[str] = []
        for folder, missing in self.absent.items():
            if not missing:
                continue
            try:
                fd = os.open(folder, DIR_FLAGS & ~os.O_NOFOLLOW)
            except OSError:
                continue
            try:
                for rel in missing:
                    for name in _sweep(fd, rel):
                        notes.append(f"note: removed {self._shown(folder, name)} written {when}: protected path")
            finally:
                os.close(fd)
        return notes

    def _shown(self, folder: Path, rel: str) -> str:
        path = folder / rel
        return path.relative_to(self.root).as_posix() if path.is_relative_to(self.root) else str(path)


def _sweep(root_fd: int, rel: str) -> list[str]:
    """Remove what a command made at `rel` (relative to `root_fd`); the root-relative names removed."""
    *dirs, name = rel.split("/")
    fds: list[int] = []
    try:
        parent = root_fd
        for part in dirs:
            try:
                parent = os.open(part, DIR_FLAGS, dir_fd=parent)
            except OSError:
                return []  # missing, or not a real folder: its own entry (`.git`) is judged on its own
            fds.append(parent)
        try:
            st = os.stat(name, dir_fd=parent, follow_symlinks=False)
        except OSError:
            return []
        is_dir = stat.S_ISDIR(st.st_mode)
        if rel == ".git" and is_dir:
            return []  # `git init`: allowed; its contents are judged entry by entry
        if rel == ".git/hooks" and is_dir:
            return [f"{rel}/{hook}" for hook in _sweep_hooks(parent, name)]
        if rel == ".git/config" and stat.S_ISREG(st.st_mode) and benign_config(_read(parent, name)):
            return []
        return [rel] if _remove(parent, name, is_dir) else []
    finally:
        for fd in fds:
            os.close(fd)


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


def add_notes(result: ShellResult, notes: list[str]) -> ShellResult:
    """The removals go after the output, where the command's own last lines are: they say what it did not keep."""
    if notes:
        result.output = "\n".join([result.output, *notes]) if result.output else "\n".join(notes)
    return result
