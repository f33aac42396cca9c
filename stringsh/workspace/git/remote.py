"""Where `/git push` will write, resolved as git resolves it, and how the receiving side is started.

A local remote (a path or `file://`) is opened by `git receive-pack` started by git push from the workspace root:
a relative path is relative to the root, `~` is the HOME git runs with, `file://host/p%41th` is `/pAth`, and
receive-pack also tries `PATH/.git`, `PATH.git/.git` and `PATH.git` and follows a `.git` file. Each candidate is
resolved from the root (where.py: a path through `/proc` or `/dev/fd` is refused, it names another folder to
git) and compared by device and inode with the roots and the workspace's git folders: pushing into them is
refused. The receiving side never runs a hook or a program of its repository's config: git push hands local
remotes none of its own config (`GIT_CONFIG_*` are dropped for the other repository), so the overrides travel on
receive-pack's own command line (`LOCAL_RECEIVE_PACK`). A network remote gets plain `git-receive-pack` (the
server decides what runs there)."""

from __future__ import annotations

import os
import pwd
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import unquote

from stringsh.errors import StringError
from stringsh.workspace.git.layout import first_line, read_small
from stringsh.workspace.git.where import ProcessView, resolve, within

#: receive-pack for a local remote: no hooks (pre-receive, update, post-receive, reference-transaction, ...,
#: proc-receive), no fsmonitor, no alternate-refs command, no push-to-checkout (a checkout would run the remote's
#: filters), no auto gc. Fixed words only: no value ever reaches this shell line (git quotes the path itself).
LOCAL_RECEIVE_PACK = ("git -c core.hooksPath=/dev/null -c core.fsmonitor=false -c core.alternateRefsCommand=true "
                      "-c receive.denyCurrentBranch=refuse -c receive.autogc=false -c gc.auto=0 receive-pack")
NETWORK_RECEIVE_PACK = "git-receive-pack"
#: The names receive-pack tries for PATH, in its order (enter_repo).
SUFFIXES = ("/.git", "", ".git/.git", ".git")


def local_paths(url: str, home: str) -> list[str] | None:
    """The paths a remote URL names on this machine, as git reads them (a `file://` path starting `/~` both ways,
    git versions differ); None for a network URL or a remote helper."""
    if url.startswith("file://"):
        rest = unquote(url.removeprefix("file://"))
        slash = rest.find("/")
        path = rest[slash:] if slash >= 0 else ""
        return [path, *expanded(path[1:], home)] if path.startswith("/~") else [path]
    if "://" in url or "::" in url:
        return None
    colon, slash = url.find(":"), url.find("/")
    if colon >= 0 and (slash == -1 or colon < slash):
        return None  # host:path, ssh
    return expanded(url, home) if url.startswith("~") else [url]


def expanded(path: str, home: str) -> list[str]:
    """`~/x` with git's HOME, `~user/x` with that user's home (receive-pack's enter_repo)."""
    name, _, rest = path[1:].partition("/")
    if not name:
        return [os.path.join(home, rest)]
    try:
        return [os.path.join(pwd.getpwnam(name).pw_dir, rest)]
    except KeyError:
        return [path]


def receive_pack(urls: Sequence[str], *, root: Path, home: str, protected: Sequence[Path]) -> str:
    """The receive-pack command for a push to `urls` after refusing any local one inside `protected`."""
    local = []
    for url in urls:
        paths = local_paths(url, home)
        if paths is None:
            continue
        local.append(url)
        for path in paths:
            refuse_inside(url, path, root, protected)
    if not local:
        return NETWORK_RECEIVE_PACK
    if len(local) != len(urls):
        raise StringError("NOT_PERMITTED", "The remote pushes to a local path and a network URL at once.",
                          "Give each its own remote (!git remote add NAME URL), then push to one at a time.")
    return LOCAL_RECEIVE_PACK


def refuse_inside(url: str, path: str, root: Path, protected: Sequence[Path]) -> None:
    """A repository inside the workspace (or its own git folders) is the workspace's to write."""
    for suffix in SUFFIXES:
        try:
            real = resolve(path + suffix if suffix else path, root)
            targets = [real, *gitfile_target(real)]
        except ProcessView:
            raise StringError("NOT_PERMITTED", f"Refusing to push to a path through /proc or /dev/fd: {url}",
                              "It names another folder to git than to stringsh; give the repository's real path.")\
                from None
        if any(within(target, protected) for target in targets):
            raise StringError("NOT_PERMITTED", f"Refusing to push into a repository inside the workspace: {url}",
                              "Its hooks and config are the workspace's; push to a repository outside it.")


def gitfile_target(path: Path) -> list[Path]:
    """Where a `.git` file at `path` points (receive-pack follows it)."""
    text = read_small(path)
    if text is None or not text.startswith("gitdir: "):
        return []
    return [resolve(first_line(text.removeprefix("gitdir: ")), path.parent)]
