"""Where a shell runs: directly (`local`) or inside bubblewrap (`bubblewrap`); one interface, same replies.

A provider only rewrites the command line, so the session logic, output handling and replies are shared.
"""

from __future__ import annotations

import contextlib
import shutil
import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path

from stringsh.errors import StringError
from stringsh.workspace.paths import STATE_DIR

#: Paths inside the workspace that stay read-only in the sandbox: the engine's state, the policy and git's code hooks.
PROTECTED = (STATE_DIR, "stringsh.toml", ".git/hooks", ".git/config")


class Provider:
    """Base provider: runs the command as given."""

    name = "local"

    def wrap(self, argv: Sequence[str], root: Path, private: Sequence[Path] = ()) -> list[str]:
        """The command line that runs `argv` with `root` as the workspace; `private` dirs are read-only inputs."""
        del root, private
        return list(argv)


class LocalProvider(Provider):
    name = "local"


class BubblewrapProvider(Provider):
    """Read-only system, writable workspace, private /tmp, no network, no capabilities, own pid namespace.

    No `--new-session`: under a pty it leaves bash without job control, so a timeout's signal to the
    foreground group would kill the whole sandbox (research-ecosystem.md §6). No `--die-with-parent`
    either: it fires when the spawning thread ends, not the process; closing the pty ends the sandbox.
    """

    name = "bubblewrap"

    def __init__(self, writable: Sequence[str | Path] | None = None, probe: BwrapProbe | None = None) -> None:
        self.bwrap = require_bwrap(probe)
        self.writable = None if writable is None else [Path(p) for p in writable]

    def wrap(self, argv: Sequence[str], root: Path, private: Sequence[Path] = ()) -> list[str]:
        """`root` is the cwd; it and the other writable folders are bound read-write, all else stays read-only."""
        args = [self.bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
        writable = [Path(root)] if self.writable is None else self.writable
        for folder in writable:
            args += ["--bind", str(folder), str(folder)]
        if Path(root) not in writable:
            args += ["--ro-bind", str(root), str(root)]  # under the private /tmp it must still be visible
        for folder in writable:
            for rel in protect(folder):
                args += ["--ro-bind", str(rel), str(rel)]
        for path in private:
            args += ["--ro-bind", str(path), str(path)]
        args += [*ISOLATION, "--chdir", str(root), "--", *argv]
        return args


def ensure_state_dir(root: Path) -> None:
    """Every provider makes `.stringsh/` before a shell starts: the sandbox must find it to protect it, and
    the local provider does the same so both show the same workspace (identical replies)."""
    with contextlib.suppress(OSError):
        (root / STATE_DIR).mkdir(mode=0o700, exist_ok=True)  # as the engine makes it: spool files are private


def protect(root: Path) -> list[Path]:
    """The protected paths to re-bind read-only, created first where a missing one could be planted."""
    ensure_state_dir(root)
    if (root / ".git").is_dir() and not (root / ".git" / "hooks").is_symlink():
        with contextlib.suppress(OSError):
            (root / ".git" / "hooks").mkdir(exist_ok=True)
    return [root / rel for rel in PROTECTED if (root / rel).exists()]


#: Own user (no capabilities, no nested user namespaces: run as root, bwrap would otherwise keep every
#: capability and `mount -o remount,rw /` would undo the read-only system), network, pid and IPC namespaces.
ISOLATION = (
    "--unshare-user", "--disable-userns", "--cap-drop", "ALL", "--unshare-net", "--unshare-pid", "--unshare-ipc",
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


def require_bwrap(probe: BwrapProbe | None = None) -> str:
    """Path of a working bwrap, or the coded error; probed once per `probe` (a fresh one when none is given),
    never a silent fallback."""
    path = shutil.which("bwrap")
    if path is None:
        raise StringError(
            "NOT_PERMITTED",
            "The policy asks for the bubblewrap shell sandbox, but bwrap is not installed.",
            'Install it (apt-get install bubblewrap) or set the policy\'s shell sandbox to "none".',
        )
    problem = (probe or BwrapProbe()).problem(path)
    if problem is not None:
        raise StringError(
            "NOT_PERMITTED",
            f"The policy asks for the bubblewrap shell sandbox, but bwrap cannot run here: {problem}",
            'Enable user namespaces for bwrap, or set the policy\'s shell sandbox to "none".',
        )
    return path


def make_provider(sandbox: str, writable: Sequence[str | Path] | None = None, probe: BwrapProbe | None = None
                  ) -> Provider:
    if sandbox == "bubblewrap":
        return BubblewrapProvider(writable, probe)
    if sandbox == "none":
        return LocalProvider()
    raise StringError("INVALID_PAYLOAD", f"Unknown shell sandbox: {sandbox!r}", "Use none or bubblewrap.")
