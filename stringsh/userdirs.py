"""The user's own stringsh folders, outside every workspace: persistent `$NAME` values, the cache signing key,
the user's policy, the workspaces they trust (config), and each workspace's change journal and audit log (state).

Both are read on every start, so on Linux and the BSDs the XDG rule platformdirs applies is spelled out here
(importing platformdirs costs 10-25 ms); other systems ask platformdirs.
"""

from __future__ import annotations

import fcntl
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

XDG_SYSTEMS = ("linux", "freebsd", "openbsd", "netbsd")


def _xdg(variable: str, default: str) -> Path:
    """`$variable/stringsh`, or `~/<default>/stringsh` when it is unset or not absolute (the XDG rule)."""
    value = os.environ.get(variable, "").strip()
    return (Path(value) if os.path.isabs(value) else Path.home() / default) / "stringsh"


def _user_dir(override: str, variable: str, default: str, kind: str) -> Path:
    """`$override`, else the XDG folder (`$variable/stringsh`, `~/<default>/stringsh`), else platformdirs'."""
    value = os.environ.get(override)
    if value:
        return Path(value).expanduser()
    if sys.platform.startswith(XDG_SYSTEMS):
        return _xdg(variable, default)
    from platformdirs import user_config_dir, user_state_dir

    return Path({"config": user_config_dir, "state": user_state_dir}[kind]("stringsh"))


def config_dir() -> Path:
    """`STRINGSH_CONFIG_DIR`, else `$XDG_CONFIG_HOME/stringsh`, else platformdirs' `user_config_dir`."""
    return _user_dir("STRINGSH_CONFIG_DIR", "XDG_CONFIG_HOME", ".config", "config")


def user_policy_file() -> Path:
    """The user's own policy, trusted, applied under every workspace's (`<config>/policy.toml`)."""
    return config_dir() / "policy.toml"


def state_dir() -> Path:
    """`STRINGSH_STATE_DIR`, else `$XDG_STATE_HOME/stringsh` (`~/.local/state/stringsh`), else platformdirs'
    `user_state_dir`: where each workspace's journal, audit log and lock live."""
    return _user_dir("STRINGSH_STATE_DIR", "XDG_STATE_HOME", ".local/state", "state")


def use_state_dir(folder: str) -> None:
    """A trusted policy's `[journal] state_dir`: the state folder from now on, for this process and its children,
    unless `STRINGSH_STATE_DIR` already names one (the variable wins: it is set for one run)."""
    if not os.environ.get("STRINGSH_STATE_DIR"):
        os.environ["STRINGSH_STATE_DIR"] = os.path.expanduser(folder)


@contextmanager
def exclusive(lock_file: Path) -> Iterator[None]:
    """Held across processes (flock on `lock_file`, made 0600): a read-modify-write of a file in the user's
    folders loses no other process's update."""
    lock_file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(lock_file, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def write_private(path: Path, data: bytes) -> None:
    """Replace a file of the user's whole: a 0600 temp file beside it, fsync, rename, fsync of the folder, so a
    reader sees the old bytes or the new, never half."""
    import tempfile  # only writers pay for it

    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}-", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
