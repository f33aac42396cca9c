"""The user's own stringsh folders, outside every workspace: persistent `$NAME` values, the cache signing key."""

from __future__ import annotations

import os
from pathlib import Path


def config_dir() -> Path:
    """`STRINGSH_CONFIG_DIR`, else platformdirs' `user_config_dir("stringsh")` (imported only when needed)."""
    override = os.environ.get("STRINGSH_CONFIG_DIR")
    if override:
        return Path(override).expanduser()
    from platformdirs import user_config_dir

    return Path(user_config_dir("stringsh"))


def state_dir() -> Path:
    """`STRINGSH_STATE_DIR`, else `$XDG_STATE_HOME/stringsh` (`~/.local/state/stringsh` when unset) on Linux and
    the BSDs, else platformdirs' `user_state_dir("stringsh")`. Read on every audited operation, so the XDG case
    does not import platformdirs (~25 ms)."""
    override = os.environ.get("STRINGSH_STATE_DIR")
    if override:
        return Path(override).expanduser()
    import sys

    if sys.platform.startswith(("linux", "freebsd", "openbsd", "netbsd")):
        xdg = os.environ.get("XDG_STATE_HOME", "").strip()
        return (Path(xdg) if os.path.isabs(xdg) else Path.home() / ".local" / "state") / "stringsh"
    from platformdirs import user_state_dir

    return Path(user_state_dir("stringsh"))
