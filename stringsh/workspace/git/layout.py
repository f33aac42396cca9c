"""Where the workspace's repository really lives, checked before git runs: a `.git` file's `gitdir:`, the git
dir's `commondir`, `objects/info/alternates` (followed as git does, five deep) and symlinks at the top of the git
dir, `objects/` and `refs/` may each lead to another repository on the machine, which every subcommand would then
read (`/git diff` prints it) or change (`/git commit` moves its branch). Each must stay inside the policy's roots,
or inside a folder the user allowed (`[git] allow_outside` in their own policy), or the workspace be trusted
(`stringsh trust`); otherwise FILE_NOT_ALLOWED names the target. (GIT_DIR, GIT_COMMON_DIR,
GIT_OBJECT_DIRECTORY and GIT_ALTERNATE_OBJECT_DIRECTORIES never reach git from outside: its environment is built
from scratch, hardening.base_env.)"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from stringsh.errors import StringError
from stringsh.userdirs import user_policy_file
from stringsh.workspace.git.where import ProcessView, resolve, within

#: Bytes read of a gitdir/commondir/alternates file (git's own are a line or a few).
MAX_FILE = 64 * 1024
#: How deep git follows alternates of alternates.
MAX_ALTERNATE_DEPTH = 5
#: Folders of a git dir whose entries are checked for symlinks too.
SCANNED = ("objects", "refs")
#: Entries looked at per folder: a git dir's top, `objects/` and `refs/` hold a few dozen.
MAX_ENTRIES = 4096


class Layout(NamedTuple):
    git_dir: Path  # the folder `.git` is or names
    common_dir: Path  # where objects and refs live (a linked worktree's main repository)


class Checker:
    """Refuses a target outside `inside` (the roots) and `allowed`, unless `trusted`."""

    def __init__(self, inside: Sequence[Path], allowed: Sequence[Path], trusted: bool) -> None:
        self.inside = [*inside, *allowed]
        self.trusted = trusted

    def target(self, what: str, text: str, base: Path) -> Path:
        try:
            real = resolve(text, base)
        except ProcessView:
            raise StringError("FILE_NOT_ALLOWED", f"The repository's {what} names a process's folder: {text}",
                              "Point it at the repository's real path (/proc and /dev/fd mean another folder "
                              "to git).") from None
        if not self.trusted and not within(real, self.inside):
            raise StringError("FILE_NOT_ALLOWED",
                              f"The repository's {what} leads outside the workspace roots: {real}",
                              f"If that repository is yours, allow it in {user_policy_file()} "
                              f"([git] allow_outside = [\"{real}\"]) or run 'stringsh trust' here.")
        return real


def read_small(path: Path) -> str | None:
    """A small file's text (None when missing); a FIFO is not waited on."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, MAX_FILE).decode("utf-8", "surrogateescape")
    finally:
        os.close(fd)


def path_text(text: str) -> str:
    """The path a one-path file names, read as git reads `commondir` and a `.git` file's line: trailing CR and LF
    dropped, the rest up to a NUL kept as written (spaces, and newlines inside, are part of the path)."""
    return text.rstrip("\r\n").split("\0", 1)[0]


def gitdir_of(text: str | None) -> str | None:
    """The folder a gitdir file (`gitdir: PATH`) names, as git's read_gitfile reads it; None when git would not
    take the file for one."""
    if text is None or not text.startswith("gitdir: "):
        return None
    return path_text(text.removeprefix("gitdir: ")) or None


def check_layout(root: Path, checker: Checker) -> Layout:
    """The repository at `root/.git`, every indirection git would follow checked."""
    dot_git = root / ".git"
    git_dir = dot_git
    if stat.S_ISREG(os.lstat(dot_git).st_mode):
        named = gitdir_of(read_small(dot_git))
        if named is None:
            raise StringError("NOT_PERMITTED", "The workspace's .git file has no gitdir: line.",
                              "Replace it with the repository, or with `gitdir: PATH` naming one.")
        git_dir = checker.target(".git file (gitdir:)", named, root)
    common_dir = git_dir
    common = path_text(read_small(git_dir / "commondir") or "")
    if common:
        common_dir = checker.target("commondir", common, git_dir)
    for folder in dict.fromkeys([git_dir, common_dir]):
        check_links(folder, checker)
    check_alternates(common_dir / "objects", checker, 0)
    return Layout(git_dir, common_dir)


def check_links(git_dir: Path, checker: Checker) -> None:
    """A symlink at the top of the git dir, `objects/` or `refs/` (git-new-workdir's layout) must stay inside."""
    for folder, prefix in [(git_dir, ""), *((git_dir / name, f"{name}/") for name in SCANNED)]:
        try:
            entries = os.scandir(folder)
        except OSError:
            continue
        with entries:
            for count, entry in enumerate(entries):
                if count >= MAX_ENTRIES:
                    break
                if entry.is_symlink():
                    checker.target(f"symlink .git/{prefix}{entry.name}", os.path.join(folder, entry.name), folder)


def check_alternates(objects: Path, checker: Checker, depth: int) -> None:
    """Each line of `objects/info/alternates` (relative to `objects`), and theirs in turn."""
    text = read_small(objects / "info" / "alternates")
    if text is None or depth >= MAX_ALTERNATE_DEPTH:
        return
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith('"'):
            line = unquote(line)
        real = checker.target("objects/info/alternates", line, objects)
        check_alternates(real, checker, depth + 1)


def unquote(text: str) -> str:
    """A C-quoted alternates line (`"a\\tb"`), as git reads it; an unknown escape is kept as written."""
    body = text[1:-1] if text.endswith('"') and len(text) > 1 else text[1:]
    escapes = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", '"': '"', "\\": "\\"}
    out: list[str] = []
    i = 0
    while i < len(body):
        char = body[i]
        if char == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt in escapes:
                out.append(escapes[nxt])
                i += 2
                continue
            if body[i + 1:i + 4].isdigit() and len(body[i + 1:i + 4]) == 3:
                out.append(chr(int(body[i + 1:i + 4], 8)))
                i += 4
                continue
        out.append(char)
        i += 1
    return "".join(out)
