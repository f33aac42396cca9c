"""The bubblewrap binds that keep a sandboxed shell from changing what governs it or reading what is denied.

Protection, per writable folder, from the shell's first instant:
- `.stringsh/`, `stringsh.toml`, `.gitmodules` and, inside a real `.git` folder, `hooks/`, `config`,
  `config.worktree`, `commondir`, `modules/` and `worktrees/` are bound read-only onto themselves;
- `.git` itself is bound onto itself: a mount point cannot be renamed or removed (EBUSY), so
  `mv .git .git-old && cp -a .git-old .git` cannot swap in a writable copy; the policy file in force (wherever
  `--policy` points) and every folder between it and its writable root are bound the same way, so the file is
  read-only and cannot be replaced by renaming a folder above it. A policy file outside every writable root is
  read-only already (`--ro-bind / /`).
What does not exist at start (`git init` later) is left to the end-of-command check (watch.py).

The user's stringsh config folder (its signing key, stored `$NAME` values, trust decisions) is hidden behind
an empty read-only tmpfs: a command that could read the key could forge the engine's signed state.

Masks: every existing path the policy's deny list matches is hidden (in the workspace, and two
levels deep in the user's home, where `~/.ssh` and `~/.aws/credentials` live): a file (or a symlink to one)
gets `/dev/null` bound over it (bubblewrap's binds are `nodev`, so opening it fails), a folder an empty
read-only tmpfs. A mount point also refuses a hard link to it (EXDEV). Files created after start are the
shell's own.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from stringsh.errors import StringError
from stringsh.workspace.paths import STATE_DIR
from stringsh.workspace.secrets import SecretMatcher
from stringsh.workspace.shell.watch import shared_git_dirs

#: Protected entries under a writable folder, bound read-only when they exist at start.
PROTECTED = (STATE_DIR, "stringsh.toml", ".gitmodules")
#: Protected entries inside a real `.git` folder (see workspace/protected.py for why each runs code).
GIT_PROTECTED = ("hooks", "config", "config.worktree", "commondir", "modules", "worktrees")
#: Not walked for masks: git's object store is large and holds no path a deny glob names.
SKIP_WALK = frozenset({".git/objects", STATE_DIR})
#: Entries walked in the user's home (two levels) for secrets to hide.
HOME_LIMIT = 20_000
#: The deny list's answer per path, kept per matcher (a workspace keeps one; the newest few are kept, each with
#: the matcher itself so its id is not reused): every `/exec` and shell start walks the workspace again (a secret
#: may have appeared), and matching, not listing, is what costs.
_ANSWERS: dict[int, tuple[SecretMatcher, dict[str, bool]]] = {}
MATCHERS_KEPT = 8


def ensure_state_dir(root: Path) -> None:
    """Every provider makes `.stringsh/` before a shell starts: the sandbox must find it to protect it, and
    the local provider does the same so both show the same workspace (identical replies)."""
    with contextlib.suppress(OSError):
        (root / STATE_DIR).mkdir(mode=0o700, exist_ok=True)  # as the engine makes it: spool files are private


def protect_args(folder: Path, limit: int = 500_000) -> list[str]:
    """Binds for one writable folder's protected paths; `.git/hooks` is made first in an existing `.git`, so a
    hook cannot be planted in a missing folder. Every git dir the walk finds (nested repositories, git dirs not
    named `.git`) is protected the same way, and a nested `.git` file (`gitdir: …`) is bound read-only."""
    ensure_state_dir(folder)
    args: list[str] = []
    for rel in PROTECTED:
        path = folder / rel
        if os.path.islink(path):  # a planted link: its target read-only, when the sandbox could write it at all
            real = path.resolve()
            if os.path.exists(real) and real.is_relative_to(folder.resolve()):
                args += ["--ro-bind", str(real), str(real)]
        elif os.path.exists(path):  # a dangling link is watch.py's
            args += ["--ro-bind", str(path), str(path)]
    git = folder / ".git"
    if os.path.isdir(git):  # a symlinked `.git` is bound at its target, the link itself watched (watch.py)
        args += _git_dir_args(folder, git)
    elif os.path.isfile(git) and not os.path.islink(git):
        args += ["--ro-bind", str(git), str(git)]
    for found in shared_git_dirs(folder, limit, time.monotonic()):  # a walk from now, shared (watch.py)
        path = folder / found.rel
        if found.rel == ".git":
            continue
        if found.is_dir:
            args += _git_dir_args(folder, path)
        elif os.path.isfile(path) and not os.path.islink(path):
            args += ["--ro-bind", str(path), str(path)]
    return args


def _git_dir_args(folder: Path, git: Path) -> list[str]:
    """A git dir pinned (a mount point cannot be renamed away), its `hooks/` made, its code entries read-only."""
    args: list[str] = []
    real = git.resolve()
    inside = real.is_relative_to(folder.resolve())  # else nothing is made there and no bind widens it
    if inside and not os.path.lexists(git / "hooks"):
        with contextlib.suppress(OSError):
            (git / "hooks").mkdir()
    if inside:
        args += ["--bind", str(real), str(real)]
    for rel in GIT_PROTECTED:
        if os.path.exists(git / rel):
            args += ["--ro-bind", str(git / rel), str(git / rel)]
    return args


def readonly_args(readonly: Sequence[Path], root: Path) -> list[str]:
    """The policy's read_only roots bound read-only onto themselves, after the writable binds (so one inside a
    writable root stays read-only) and visible under the private /tmp."""
    args: list[str] = []
    for folder in readonly:
        if folder != root and os.path.isdir(folder):
            args += ["--ro-bind", str(folder), str(folder)]
    return args


def other_roots(root: Path, writable: Sequence[Path], readonly: Sequence[Path]) -> list[Path]:
    """Every root besides the workspace, once: their secrets are masked as the workspace's are."""
    seen: list[Path] = []
    for folder in (*writable, *readonly):
        if folder != root and folder not in seen and os.path.isdir(folder):
            seen.append(folder)
    return seen


def policy_args(policy_file: Path | None, writable: Sequence[Path]) -> list[str]:
    """The policy file read-only, and pinned: each folder from its writable root down to it is a mount point."""
    if policy_file is None or not policy_file.is_file():
        return []
    real = policy_file.resolve()
    for folder in writable:
        base = folder.resolve()
        if real.is_relative_to(base) and real != base:
            args: list[str] = []
            current = base
            for part in real.relative_to(base).parts[:-1]:
                current = current / part
                args += ["--bind", str(current), str(current)]
            return [*args, "--ro-bind", str(real), str(real)]
    return []


def hide_user_config(writable: Sequence[Path]) -> list[str]:
    """An empty read-only folder over the user's config folder (signing key, stored `$NAME` values, trust
    decisions, the user's own trusted policy) and state folder (every workspace's journal, which holds previous
    file bytes, and audit log).

    Both are made first (0700) when missing: a missing one left unhidden could be made by the sandbox itself
    (with HOME as the workspace, `mkdir -p .config/stringsh` and a `policy.toml` there would be a trusted user
    policy). When one lies inside a writable root, each folder between that root and it is pinned (a mount point
    cannot be renamed away and remade writable). A writable root inside one of them is refused: the sandbox
    would see the key and the other workspaces' journals."""
    from stringsh.userdirs import config_dir, state_dir

    args: list[str] = []
    for folder in (config_dir(), state_dir()):
        with contextlib.suppress(OSError):
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not os.path.isdir(folder):
            continue
        real = folder.resolve()
        roots = [Path(w).resolve() for w in writable]
        if any(w.is_relative_to(real) for w in roots):
            raise StringError(
                "NOT_PERMITTED",
                f"The shell sandbox cannot start in {real} or below: it is stringsh's own user folder.",
                "Open a workspace outside stringsh's config and state folders.",
            )
        for base in roots:
            if real.is_relative_to(base):
                current = base
                for part in real.relative_to(base).parts[:-1]:
                    current = current / part
                    args += ["--bind", str(current), str(current)]
                break
        args += ["--tmpfs", str(real), "--remount-ro", str(real)]
    return args


def mask_args(root: Path, matcher: SecretMatcher, limit: int, depth: int = 4096,
              keep: Sequence[Path] = (), *, strict: bool = False) -> list[str]:
    """Binds hiding every existing path under `root` the deny list matches (at most `limit` entries walked, `depth`
    folders deep), except one holding a `keep` folder (the workspace under a denied name must stay visible).

    `strict` (the workspace): a walk cut short by `limit` refuses to start the shell (`NOT_PERMITTED`, naming the
    limit) instead of leaving the unvisited folders' secrets readable; failing closed is simpler to trust than
    masking every unvisited folder, which would hide the workspace's own files behind empty folders."""
    args: list[str] = []
    for path, is_dir in denied_paths(root, matcher, limit, depth, strict=strict):
        if any(Path(k).is_relative_to(path) for k in keep):
            continue
        if is_dir:
            args += ["--tmpfs", str(path), "--remount-ro", str(path)]
        else:
            args += ["--ro-bind", "/dev/null", str(path)]
    return args


def walk_cut(limit: int) -> StringError:
    return StringError(
        "NOT_PERMITTED",
        f"The shell sandbox cannot check every path against the deny list: the workspace has more than {limit}"
        " entries ([limits] max_walk_entries).",
        "Raise [limits] max_walk_entries in your user policy, or work in a smaller folder.",
    )


def home_args(matcher: SecretMatcher, writable: Sequence[Path]) -> list[str]:
    """The user's home seen through the same deny list, two levels deep (`~/.ssh`, `~/.aws/credentials`,
    `~/.netrc`): the sandbox shows the whole system read-only, and the user's keys are the first thing to read."""
    home = Path(os.path.expanduser("~"))
    if not os.path.isdir(home) or home.resolve() == Path("/"):
        return []
    return mask_args(home, matcher, HOME_LIMIT, 2, writable)


def _answers(matcher: SecretMatcher, limit: int) -> dict[str, bool]:
    kept = _ANSWERS.pop(id(matcher), None)
    answers = kept[1] if kept is not None and len(kept[1]) <= 2 * limit else {}
    _ANSWERS[id(matcher)] = (matcher, answers)  # newest last
    while len(_ANSWERS) > MATCHERS_KEPT:
        del _ANSWERS[next(iter(_ANSWERS))]
    return answers


def denied_paths(root: Path, matcher: SecretMatcher, limit: int, depth: int = 4096, *, strict: bool = False
                 ) -> Iterator[tuple[Path, bool]]:
    """(path, is a folder) for each denied entry; a denied folder is not entered, a dangling link is skipped.
    Past `limit` entries the walk stops: silently (best effort, the user's home), or, `strict`, with
    `NOT_PERMITTED` (see `mask_args`)."""
    stack = [(root, "")]
    seen = 0
    answers = _answers(matcher, limit)
    while stack:
        folder, prefix = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > limit:
                if strict:
                    raise walk_cut(limit)
                return
            rel = f"{prefix}{entry.name}"
            if rel in SKIP_WALK:
                continue
            try:
                is_dir = entry.is_dir()  # follows a symlink: the mask goes where the link leads
            except OSError:
                continue
            denied = answers.get(rel)
            if denied is None:
                denied = answers[rel] = matcher.denied(rel)
            if denied:
                if is_dir or os.path.exists(entry.path):
                    yield Path(entry.path), is_dir
            elif is_dir and not entry.is_symlink() and rel.count("/") + 1 < depth:
                stack.append((Path(entry.path), rel + "/"))
