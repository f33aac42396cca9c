"""The user's own stringsh folders, outside every workspace: persistent `$NAME` values, the cache signing key,
the user's policy, the workspaces they trust (config), and each workspace's change journal and audit log (state).

Both are read on every start, so on Linux and the BSDs the XDG rule platformdirs applies is spelled out here
(importing platformdirs costs 10-25 ms); other systems ask platformdirs.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

XDG_SYSTEMS = ("linux", "freebsd", "openbsd", "netbsd")


def _xdg(variable: str, default: str) -> Path:
    """`$variable/stringsh`, or `~/<default>/stringsh` when it is unset or not absolute (the XDG rule)."""
    value = os.environ.get(variable, "").strip()
    return (Path(value) if os.path.isabs(value) else Path.home() / default) / "stringsh"


def config_dir() -> Path:
    """`STRINGSH_CONFIG_DIR`, else `$XDG_CONFIG_HOME/stringsh`, else platformdirs' `user_config_dir`."""
    override = os.environ.get("STRINGSH_CONFIG_DIR")
    if override:
        return Path(override).expanduser()
    if sys.platform.startswith(XDG_SYSTEMS):
        return _xdg("XDG_CONFIG_HOME", ".config")
    from platformdirs import user_config_dir

    return Path(user_config_dir("stringsh"))


def user_policy_file() -> Path:
    """The user's own policy, trusted, applied under every workspace's (`<config>/policy.toml`)."""
    return config_dir() / "policy.toml"


def state_dir() -> Path:
    """`STRINGSH_STATE_DIR`, else `$XDG_STATE_HOME/stringsh` (`~/.local/state/stringsh`), else platformdirs'
    `user_state_dir`: where each workspace's journal, audit log and lock live."""
    override = os.environ.get("STRINGSH_STATE_DIR")
    if override:
        return Path(override).expanduser()
    if sys.platform.startswith(XDG_SYSTEMS):
        return _xdg("XDG_STATE_HOME", ".local/state")
    from platformdirs import user_state_dir

    return Path(user_state_dir("stringsh"))
