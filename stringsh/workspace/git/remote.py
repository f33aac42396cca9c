"""Where `/git push` will write, decided as git decides it, and how the receiving side is started.

git picks a push's transport from the URL alone (transport.c `transport_get`, connect.c `parse_connect_url`,
url.c `is_url` and `url_is_local_not_ssh`): a remote helper when the URL starts `<scheme>::` (scheme characters
`[A-Za-z0-9][A-Za-z0-9+.-]*`, at the very start only) or the remote sets `vcs`; a URL only for `<scheme>://`;
the scp-like `host:path` (ssh) only when no slash comes before the first colon; everything else is a path on this
machine, `r/e::p` and `./x:y` included. `target` follows those rules; the push is then held to what was decided:
its GIT_ALLOW_PROTOCOL names only the transports decided (`file` for a local push, never for a network one), so
git refuses rather than start a receive-pack the decision did not foresee.

A local remote (a path or `file://`) is opened by `git receive-pack` started by git push from the workspace root:
a relative path is relative to the root, `~` is the HOME git runs with, `file://host/p%41th` is `/pAth`, and
receive-pack also tries `PATH/.git`, `PATH.git/.git` and `PATH.git` and follows a gitdir file and `commondir`.
Each candidate is resolved from the root (where.py: a path through `/proc` or `/dev/fd` is refused, it names
another folder to git) and compared by device and inode with the roots and the workspace's git folders: pushing
into them is refused. The receiving side never runs a hook or a program of its repository's config: git push
hands local remotes none of its own config (`GIT_CONFIG_*` are dropped for the other repository), so the
overrides travel on receive-pack's own command line (`LOCAL_RECEIVE_PACK`). A network remote gets plain
`git-receive-pack` (the server decides what runs there; an ssh server accepts no other command)."""

from __future__ import annotations

import os
import pwd
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from stringsh.errors import StringError
from stringsh.workspace.git.layout import gitdir_of, path_text, read_small
from stringsh.workspace.git.where import ProcessView, resolve, within

#: receive-pack for a local remote: no hooks (pre-receive, update, post-receive, reference-transaction, ...,
#: proc-receive), no fsmonitor, no alternate-refs command, no push-to-checkout (a checkout would run the remote's
#: filters), no auto gc. Fixed words only: no value ever reaches this shell line (git quotes the path itself).
LOCAL_RECEIVE_PACK = ("git -c core.hooksPath=/dev/null -c core.fsmonitor=false -c core.alternateRefsCommand=true "
                      "-c receive.denyCurrentBranch=refuse -c receive.autogc=false -c gc.auto=0 receive-pack")
NETWORK_RECEIVE_PACK = "git-receive-pack"
#: The names receive-pack tries for PATH, in its order (enter_repo).
SUFFIXES = ("/.git", "", ".git/.git", ".git")
#: The transports a push may use, by git's names for them (plain http would send a credential in clear; `git://`
#: has no authentication; a remote helper is a program the repository names).
PUSHABLE = frozenset({"file", "ssh", "https"})
#: Builtin URL schemes and the transport git runs for them (any other `<scheme>://` is the helper of that name).
BUILTIN = (("file://", "file"), ("ssh://", "ssh"), ("git+ssh://", "ssh"), ("ssh+git://", "ssh"), ("git://", "git"))

HEX = frozenset(b"0123456789abcdefABCDEF")


class Target(NamedTuple):
    """What git does with one push URL: the transport by git's name (`file`, `ssh`, a helper's name such as
    `https` or `ext`), for `file` the path receive-pack is given, and whether the URL or the remote's `vcs` named
    the helper (`file::x` runs a program `git-remote-file`, which GIT_ALLOW_PROTOCOL=file would let through)."""

    transport: str
    path: str | None = None
    named_helper: bool = False


class PushPlan(NamedTuple):
    receive_pack: str  # the `--receive-pack` command
    protocols: str  # GIT_ALLOW_PROTOCOL for this push: the transports decided, nothing else


def _scheme_char(char: str, first: bool) -> bool:
    """url.c `is_urlschemechar`: ASCII letters and digits, and `+ - .` after the first."""
    return (char.isascii() and char.isalnum()) or (not first and char in "+-.")


def scheme_length(url: str) -> int:
    """How many leading characters of `url` can be a scheme."""
    count = 0
    while count < len(url) and _scheme_char(url[count], count == 0):
        count += 1
    return count


def is_url(url: str) -> bool:
    """`<scheme>://` at the start."""
    count = scheme_length(url)
    return count > 0 and url[count:count + 3] == "://"


def is_local(url: str) -> bool:
    """git's `url_is_local_not_ssh` (POSIX): no colon, or a slash before the first colon."""
    colon, slash = url.find(":"), url.find("/")
    return colon < 0 or 0 <= slash < colon


def host_end(text: str) -> int:
    """connect.c `host_end` without removing brackets: where the path part starts when the text has a bracketed
    host (`[…]` at the start, or after the first `@[`): at the closing `]`, which stays in the path."""
    at = text.find("@[")
    start = at + 1 if at >= 0 else 0
    if text[start:start + 1] == "[":
        close = text.find("]", start + 1)
        return close if close >= 0 else 0
    return 0


def target(url: str, vcs: str | None = None) -> Target:
    """The transport git uses to push to `url` (`vcs`: the remote's `vcs` setting, which names a helper)."""
    if vcs is not None:
        return Target(vcs, named_helper=True)
    count = scheme_length(url)
    if url[count:count + 2] == "::":
        return Target(url[:count], named_helper=True)  # a remote helper, `git-remote-<scheme>`
    if url.startswith("rsync:"):
        return Target("rsync")
    if not is_url(url):
        if "://" in url:
            return Target(url[:url.index("://")])  # git stops: "protocol '…' is not supported"
        if is_local(url):
            return Target("file", url[host_end(url):])
        return Target("ssh")
    for prefix, transport in BUILTIN:
        if url.startswith(prefix):
            if transport != "file":
                return Target(transport)
            rest = url_decode(url.removeprefix(prefix))
            slash = rest.find("/", host_end(rest))
            return Target("file", rest[slash:] if slash >= 0 else None)
    return Target(url[:url.index(":")])  # `https://` is the helper git-remote-https


def url_decode(text: str) -> str:
    """url.c `url_decode`: each `%XX` with both digits hex and a value above 0 becomes that byte (`%00` stays as
    written, unlike urllib's unquote); nothing else changes."""
    data = text.encode("utf-8", "surrogateescape")
    out = bytearray()
    index = 0
    while index < len(data):
        pair = data[index + 1:index + 3]
        if data[index] == 0x25 and len(pair) == 2 and all(byte in HEX for byte in pair) and int(pair, 16) > 0:
            out.append(int(pair, 16))
            index += 3
            continue
        out.append(data[index])
        index += 1
    return out.decode("utf-8", "surrogateescape")


def local_paths(path: str, *, file_url: bool, home: str) -> list[str]:
    """The paths on this machine receive-pack may open for `path` (a `file://` path starting `/~` both ways: git
    versions differ), trailing slashes dropped as receive-pack drops them."""
    while len(path) > 1 and path.endswith("/"):
        path = path[:-1]
    if file_url:
        return [path, *expanded(path[1:], home)] if path.startswith("/~") else [path]
    return expanded(path, home) if path.startswith("~") else [path]


def expanded(path: str, home: str) -> list[str]:
    """`~/x` with git's HOME, `~user/x` with that user's home (receive-pack's enter_repo)."""
    name, _, rest = path[1:].partition("/")
    if not name:
        return [os.path.join(home, rest)]
    try:
        return [os.path.join(pwd.getpwnam(name).pw_dir, rest)]
    except KeyError:
        return [path]


def transport_refused(remote: str) -> StringError:
    return StringError("NOT_PERMITTED", f"git push to {remote} uses a transport stringsh does not allow.",
                       "Only file, https and ssh remotes can be pushed to.")


def plan(remote: str, urls: Sequence[str], *, vcs: str | None, root: Path, home: str,
         protected: Sequence[Path]) -> PushPlan:
    """How to push to `remote` (its push `urls`), after refusing a transport outside PUSHABLE and any local
    target inside `protected`."""
    targets = [target(url, vcs) for url in urls]
    if any(found.transport not in PUSHABLE or found.named_helper for found in targets):
        raise transport_refused(remote)
    local = [(url, found) for url, found in zip(urls, targets, strict=True) if found.transport == "file"]
    for url, found in local:
        for path in local_paths(found.path or "", file_url=url.startswith("file://"), home=home):
            refuse_inside(url, path, root, protected)
    if local and len(local) != len(urls):
        raise StringError("NOT_PERMITTED", "The remote pushes to a local path and a network URL at once.",
                          "Give each its own remote (!git remote add NAME URL), then push to one at a time.")
    if local:
        return PushPlan(LOCAL_RECEIVE_PACK, "file")
    return PushPlan(NETWORK_RECEIVE_PACK, ":".join(sorted({found.transport for found in targets})))


def refuse_inside(url: str, path: str, root: Path, protected: Sequence[Path]) -> None:
    """A repository inside the workspace (or its own git folders) is the workspace's to write, whichever way git
    would reach it: each candidate path, the folder a gitdir file there names, and their `commondir`."""
    for suffix in SUFFIXES:
        candidate = path + suffix if suffix else path
        try:
            real = resolve(candidate, root)
            targets = [real, *gitfile_target(real, candidate, root)]
            targets += [common for folder in targets for common in common_target(folder)]
        except ProcessView:
            raise StringError("NOT_PERMITTED", f"Refusing to push to a path through /proc or /dev/fd: {url}",
                              "It names another folder to git than to stringsh; give the repository's real path.")\
                from None
        if any(within(found, protected) for found in targets):
            raise StringError("NOT_PERMITTED", f"Refusing to push into a repository inside the workspace: {url}",
                              "Its hooks and config are the workspace's; push to a repository outside it.")


def gitfile_target(real: Path, candidate: str, root: Path) -> list[Path]:
    """Where a gitdir file at `candidate` (resolved: `real`) points; receive-pack reads it relative to the folder
    of the path as given, not of its resolved target."""
    named = gitdir_of(read_small(real))
    if named is None:
        return []
    folder = os.path.dirname(candidate) if "/" in candidate else ""
    return [resolve(named if os.path.isabs(named) else os.path.join(folder, named), root)]


def common_target(folder: Path) -> list[Path]:
    """A git dir's `commondir`: its hooks and config live there."""
    common = path_text(read_small(folder / "commondir") or "")
    return [resolve(common, folder)] if common else []
