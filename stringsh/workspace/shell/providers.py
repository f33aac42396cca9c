"""Where a shell runs: directly (`local`) or inside bubblewrap (`bubblewrap`); one interface, same replies.

A provider only rewrites the command line, so the session logic, output handling and replies are shared.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

from stringsh.errors import StringError
from stringsh.workspace.policy import Limits
from stringsh.workspace.secrets import SecretMatcher
from stringsh.workspace.shell.binds import (
    ensure_state_dir,
    hide_user_config,
    home_args,
    mask_args,
    other_roots,
    policy_args,
    protect_args,
    readonly_args,
)
from stringsh.workspace.shell.hidden import sandbox_note
from stringsh.workspace.shell.privatetmp import PrivateTmp
from stringsh.workspace.shell.watch import ProtectedWatch

__all__ = ["BubblewrapProvider", "BwrapProbe", "LocalProvider", "Provider", "ensure_state_dir", "make_provider",
           "require_bwrap"]


class Provider:
    """Base provider: runs the command as given."""

    name = "local"
    #: Whether what it starts ends when stringsh does, however it ends (a sandbox's pid namespace with
    #: `--die-with-parent`); else the session of each shell and one-shot it starts is named to reaper.py.
    ends_with_stringsh = False

    def wrap(self, argv: Sequence[str], root: Path, private: Sequence[Path] = (), tmp: PrivateTmp | None = None
             ) -> list[str]:
        """The command line that runs `argv` with `root` as the workspace; `private` dirs are read-only inputs,
        `tmp` the folder a sandbox shows as its /tmp (`private_tmp`)."""
        del root, private, tmp
        return list(argv)

    def private_tmp(self, root: Path) -> PrivateTmp | None:
        """A fresh host folder for the sandbox's /tmp, whose writes a reply can name (privatetmp.py); None: the
        local shell writes the real /tmp."""
        del root
        return None

    def notes(self, root: Path, output: str, tmp: PrivateTmp | None, until: str) -> list[str]:
        """What a sandboxed command's reply ends with: what it wrote to the sandbox's /tmp (gone `until`), then
        what it failed on that the sandbox hides or keeps read-only (hidden.py); nothing for the local shell."""
        del root, output, tmp, until
        return []

    def watch(self, root: Path) -> ProtectedWatch | None:
        """The end-of-command check of protected paths (watch.py); None: the local shell is fully trusted."""
        del root
        return None


class LocalProvider(Provider):
    name = "local"


class BubblewrapProvider(Provider):
    """Read-only system, writable workspace, private /tmp, no network, no capabilities, own pid namespace.

    No `--new-session`: under a pty it leaves bash without job control, so a timeout's signal to the
    foreground group would kill the whole sandbox. `--die-with-parent` fires when the thread that started the
    sandbox ends: a topic shell is started from one that lives as long as the process (lifeline.py), a one-shot's
    thread waits for its end; closing the pty alone leaves a background job's sandbox running.

    Protected paths, the policy file and the user's config folder are bound read-only or hidden and what the
    policy denies is masked (binds.py); protected files a command makes later are removed after it (watch.py).
    """

    name = "bubblewrap"
    ends_with_stringsh = True

    def __init__(self, writable: Sequence[str | Path] | None = None, probe: BwrapProbe | None = None, *,
                 matcher: SecretMatcher | None = None, policy_file: Path | None = None,
                 walk_limit: int = 500_000, readonly: Sequence[str | Path] = ()) -> None:
        """`readonly` lists the read_only roots besides the workspace (bound read-only, masked); `matcher` is
        the policy's deny list (its paths are masked), `policy_file` the policy in force (kept
        read-only), `walk_limit` the most entries walked to find denied paths: never below the built-in default,
        since a workspace's own policy may lower limits (narrowing) and a shorter walk would unmask its secrets."""
        self.bwrap = require_bwrap(probe)
        self.writable = None if writable is None else [Path(p) for p in writable]
        self.matcher = matcher
        self.policy_file = policy_file
        self.walk_limit = max(walk_limit, Limits().max_walk_entries)  # a workspace may lower limits, not this one
        self.readonly = [Path(p) for p in readonly]

    def wrap(self, argv: Sequence[str], root: Path, private: Sequence[Path] = (), tmp: PrivateTmp | None = None
             ) -> list[str]:
        """`root` is the cwd; it and the other writable folders are bound read-write, all else stays read-only.
        /tmp is `tmp`'s folder when given (it learns the mount points made in it), else an in-memory tmpfs."""
        args = [self.bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                *(tmp.bind_args() if tmp is not None else ["--tmpfs", "/tmp"])]
        writable = [Path(root)] if self.writable is None else self.writable
        for folder in writable:
            args += ["--bind", str(folder), str(folder)]
        if Path(root) not in writable:
            args += ["--ro-bind", str(root), str(root)]  # under the private /tmp it must still be visible
        args += readonly_args(self.readonly, Path(root))
        for folder in writable:
            args += protect_args(folder, self.walk_limit)  # binds.py: protected paths read-only, `.git` pinned
        args += policy_args(self.policy_file, writable)
        args += hide_user_config(writable)
        if self.matcher is not None:
            args += mask_args(Path(root), self.matcher, self.walk_limit, strict=True)
            for folder in other_roots(Path(root), writable, self.readonly):  # each root's secrets, as the root's
                args += mask_args(folder, self.matcher, self.walk_limit, strict=True)
            args += home_args(self.matcher, [Path(root), *writable])
        for path in private:
            args += ["--ro-bind", str(path), str(path)]
        args += [*ISOLATION, "--chdir", str(root), "--", *argv]
        if tmp is not None:
            tmp.mounted(args)
        return args

    def watch(self, root: Path) -> ProtectedWatch:
        return ProtectedWatch([Path(root)] if self.writable is None else self.writable, Path(root), self.walk_limit)

    def private_tmp(self, root: Path) -> PrivateTmp | None:
        return PrivateTmp.make(self.roots(root))

    def notes(self, root: Path, output: str, tmp: PrivateTmp | None, until: str) -> list[str]:
        written = tmp.note(until) if tmp is not None else None
        hidden = sandbox_note(output, self.roots(root))
        return [note for note in (written, hidden) if note]

    def roots(self, root: Path) -> list[Path]:
        """Every folder bound into the sandbox at its own path: the workspace, the writable and read-only roots."""
        writable = [Path(root)] if self.writable is None else self.writable
        return [Path(root), *writable, *self.readonly]


#: Own user (no capabilities, no nested user namespaces: run as root, bwrap would otherwise keep every
#: capability and `mount -o remount,rw /` would undo the read-only system), network, pid and IPC namespaces.
ISOLATION = (
    "--unshare-user", "--disable-userns", "--cap-drop", "ALL", "--unshare-net", "--unshare-pid", "--unshare-ipc",
    "--die-with-parent",  # the thread that starts a sandbox outlives it (lifeline.py), so this is stringsh's death
)

class BwrapProbe:
    """Whether a bwrap binary can run here, asked once per owner (a workspace keeps one), never process-wide."""

    def __init__(self) -> None:
        self._problems: dict[str, str | None] = {}
        self._lock = threading.Lock()

    def problem(self, path: str) -> str | None:
        """None when `bwrap` at `path` ran a trivial sandboxed command, else what went wrong."""
        with self._lock:
            if path not in self._problems:
                self._problems[path] = _probe(path)
            return self._problems[path]


def _probe(path: str) -> str | None:
    probe = [path, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", *ISOLATION, "true"]
    try:
        done = subprocess.run(probe, capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    return None if done.returncode == 0 else done.stderr.decode("utf-8", "replace").strip()


@contextlib.contextmanager
def one_shot_tmp(provider: Provider, root: Path) -> Iterator[PrivateTmp | None]:
    """The private /tmp of one sandboxed `bash -c`, removed when it ends, however it ends."""
    tmp = provider.private_tmp(root)
    try:
        yield tmp
    finally:
        if tmp is not None:
            tmp.remove()


def require_bwrap(probe: BwrapProbe | None = None) -> str:
    """Path of a working bwrap, or the coded error; probed once per `probe` (a fresh one when none is given),
    never a silent fallback."""
    path = shutil.which("bwrap")
    if path is None:
        raise StringError(
            "NOT_PERMITTED",
            "The policy asks for the bubblewrap shell sandbox, but bwrap is not installed.",
            "Install it (apt-get install bubblewrap), or set [shell] sandbox = false in your policy (or start with"
            " --no-sandbox) to run the shell unsandboxed.",
        )
    problem = (probe or BwrapProbe()).problem(path)
    if problem is not None:
        raise StringError(
            "NOT_PERMITTED",
            f"The policy asks for the bubblewrap shell sandbox, but bwrap cannot run here: {problem}",
            "Enable user namespaces for bwrap, or set [shell] sandbox = false in your policy (or start with"
            " --no-sandbox) to run the shell unsandboxed.",
        )
    return path


def make_provider(sandbox: str, writable: Sequence[str | Path] | None = None, probe: BwrapProbe | None = None,
                  *, matcher: SecretMatcher | None = None, policy_file: Path | None = None,
                  walk_limit: int = 500_000, readonly: Sequence[str | Path] = ()) -> Provider:
    if sandbox == "bubblewrap":
        return BubblewrapProvider(writable, probe, matcher=matcher, policy_file=policy_file, walk_limit=walk_limit,
                                  readonly=readonly)
    if sandbox == "none":
        return LocalProvider()
    raise StringError("INVALID_PAYLOAD", f"Unknown shell sandbox: {sandbox!r}", "Use none or bubblewrap.")
