"""Paths that run code later: stringsh never writes, creates or deletes them, for every front end.

A workspace may be someone else's repository, and an agent may be told to work in it. Writing one of these
paths is not an edit but code the user runs later, outside any sandbox:
- `.git/hooks/**` runs at the next commit, checkout or push;
- `.git/config` and `.git/config.worktree` (`core.hooksPath`, `core.fsmonitor`, `core.sshCommand`, filter and
  diff drivers, `include.path`); `.git/commondir` points git at another folder's config and hooks; `.git/modules/**`
  and `.git/worktrees/**` hold the same files for submodules and worktrees; a `.git` file (`gitdir: …`) points git
  at a repository anywhere;
- `.gitmodules`: a submodule URL runs code where the user allowed the `ext::` transport, and older gits ran
  `update = !command` and option-like URLs from it (CVE-2019-19604, CVE-2018-17456); a cloned repository is the
  classic delivery of those attacks, so it is protected for writes (readable as any file);
- `.stringsh/**` is stringsh's own state (the journal is replayed), and `stringsh.toml` is the policy itself
  (the engine already refuses both with their own messages; their other spellings are refused here).

A git dir need not be named `.git`: `git init --bare .bare` and a `.git` file saying `gitdir: ./.bare` make `.bare`
the repository. So `hooks/**` and the code entries of any folder that looks like a git dir (a `HEAD` file or
symlink and `objects` and `refs`, or a `commondir`: git's own test, `git_dir_by_kinds`), or that a `.git` file in a
folder above it names, are refused
the same way (`check_protected` with the workspace's root descriptor looks at the disk).

Names are compared case-insensitively (`.GIT/HOOKS` is the same folder on macOS and Windows file systems), at
any depth (a nested repository is one `cd` away). Reads stay allowed: only secrets are denied for reading.
The engine checks both the requested and the resolved path, so a symlink into these paths is refused too.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable

from stringsh.errors import StringError
from stringsh.escapes import shown_name

GIT_DIR = ".git"
#: Entries right under a `.git` folder that decide what git runs.
GIT_CODE = frozenset({"hooks", "config", "config.worktree", "commondir", "modules", "worktrees"})
HINT = "stringsh protects paths that run code later; edit it outside stringsh if you mean it."


def protected(parts: list[str]) -> bool:
    """Whether the root-relative path `parts` is (or lies inside) a path that runs code later."""
    if not parts:
        return False
    low = [p.lower() for p in parts]
    if low[-1] == ".gitmodules":
        return True
    if low[0] == ".stringsh":
        return True
    if len(low) == 1 and low[0] == "stringsh.toml":
        return True
    for i, part in enumerate(low):
        if part == GIT_DIR:
            return i + 1 == len(low) or low[i + 1] in GIT_CODE
    return False


def refuse(shown: str) -> StringError:
    return StringError("NOT_PERMITTED", f"{shown_name(shown)} is protected: it can run code later", HINT)


def check_protected(parts: list[str], shown: str, root_fd: int | None = None) -> None:
    """Refuse a change to a protected path. The policy file's own spelling (`stringsh.toml`) is left to the
    engine's policy check, whose reply says why (it is the policy), and `.stringsh/` to the state check.
    With `root_fd`, a path inside a git dir not named `.git` is refused too."""
    if parts == ["stringsh.toml"]:
        return
    if protected(parts) or (root_fd is not None and in_other_git_dir(parts, root_fd)):
        raise refuse(shown)


DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def in_other_git_dir(parts: list[str], root_fd: int) -> bool:
    """Whether `parts` is a code entry (or inside one) of a folder that is a git dir (see the module's note)."""
    for i, part in enumerate(parts):
        if part.lower() in GIT_CODE:
            above = parts[:i]
            if looks_like_git_dir(above, root_fd) or named_by_git_file(above, root_fd):
                return True
    return False


def _open(parts: list[str], root_fd: int) -> int | None:
    """A descriptor on the folder `parts` (no symlink followed), or None."""
    fd = os.dup(root_fd)
    for part in parts:
        try:
            nxt = os.open(part, DIR_FLAGS, dir_fd=fd)
        except OSError:
            os.close(fd)
            return None
        os.close(fd)
        fd = nxt
    return fd


def _kind(name: str, fd: int) -> int:
    try:
        return stat.S_IFMT(os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode)
    except OSError:
        return 0


def git_dir_by_kinds(kind: Callable[[str], int], present: Callable[[str], bool]) -> bool:
    """git's own test (setup.c `is_git_directory`), leaning wide, from `kind(name)`, the file type of an entry
    (`stat.S_IFMT` of its lstat, 0 when missing), and `present(name)`, whether it exists through links: a `HEAD`
    that is not a folder (a file, or a symlink, dangling or not: git takes a link to `refs/…`), and `objects` and
    `refs` present (of any kind: git only asks for access), or a `commondir` naming the folder that holds them. The
    sandbox's sweeper (shell/watch.py) uses the same rule."""
    head = kind("HEAD")
    if head in (0, stat.S_IFDIR):
        return False
    return (present("objects") and present("refs")) or present("commondir")


def _present(name: str, fd: int) -> bool:
    try:
        os.stat(name, dir_fd=fd)
    except OSError:
        return False
    return True


def looks_like_git_dir(parts: list[str], root_fd: int) -> bool:
    """Whether the folder `parts` is a git dir to git (`git_dir_by_kinds`)."""
    fd = _open(parts, root_fd)
    if fd is None:
        return False
    try:
        return git_dir_by_kinds(lambda name: _kind(name, fd), lambda name: _present(name, fd))
    finally:
        os.close(fd)


def named_by_git_file(parts: list[str], root_fd: int) -> bool:
    """Whether a `.git` file in a folder above `parts` says `gitdir: <parts>` (relative to its folder)."""
    if not parts:
        return False
    want = [p.lower() for p in parts]
    for depth in range(len(parts)):
        fd = _open(parts[:depth], root_fd)
        if fd is None:
            return False
        try:
            text = _read_git_file(fd)
        finally:
            os.close(fd)
        if text is None or not text.startswith("gitdir:"):
            continue
        target = text[len("gitdir:"):].strip()
        if os.path.isabs(target):
            continue  # outside the walk from the root: `resolve` already keeps writes inside it
        joined = os.path.normpath(os.path.join(*parts[:depth], target) if depth else target)
        if [p.lower() for p in joined.split(os.sep) if p not in ("", ".")] == want:
            return True
    return False


def _read_git_file(fd: int) -> str | None:
    try:
        file = os.open(GIT_DIR, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=fd)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(file).st_mode):
            return None
        return os.read(file, 4096).decode("utf-8", "replace").splitlines()[0]
    except (OSError, IndexError):
        return None
    finally:
        os.close(file)
