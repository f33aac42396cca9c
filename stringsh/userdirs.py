"""The user's own stringsh folders, outside every workspace: persistent `$NAME` values, the cache signing key,
the user's policy and the workspaces they trust."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def config_dir() -> Path:
    """`STRINGSH_CONFIG_DIR`, else platformdirs' `user_config_dir("stringsh")`.

    Every start reads the trust records here, so on Linux the XDG rule platformdirs applies is spelled out
    (importing platformdirs costs ~10 ms); other systems ask platformdirs."""
    override = os.environ.get("STRINGSH_CONFIG_DIR")
    if override:
        return Path(override).expanduser()
    if sys.platform.startswith("linux"):
        xdg = os.environ.get("XDG_CONFIG_HOME", "").strip()
        return Path(xdg or os.path.expanduser("~/.config")) / "stringsh"
    from platformdirs import user_config_dir

    return Path(user_config_dir("stringsh"))


def user_policy_file() -> Path:
    """The user's own policy, trusted, applied under every workspace's (`<config>/policy.toml`)."""
    return config_dir() / "policy.toml"
