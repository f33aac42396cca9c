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
