"""The per-user secret that signs index-cache entries: one 32-byte key file in the user's config folder.

Engine state (`EngineState.cache_key`) hands it out, so only the engine knows where it lives.
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path

KEY_FILE = "cache.key"
KEY_BYTES = 32


def key_path() -> Path:
    """`<config dir>/cache.key`; the config folder honours `STRINGSH_CONFIG_DIR`."""
    from stringsh.userdirs import config_dir

    return config_dir() / KEY_FILE


class UserKey:
    """The key read (or created) once per owner; None when the config folder cannot hold it (no disk cache)."""

    def __init__(self) -> None:
        self._keys: dict[str, bytes | None] = {}
        self._lock = threading.Lock()

    def get(self) -> bytes | None:
        path = key_path()
        with self._lock:
            if str(path) not in self._keys:
                self._keys[str(path)] = read_or_create_key(path)
            return self._keys[str(path)]


def read_or_create_key(path: Path) -> bytes | None:
    """Created whole or not at all (a temp file linked into place), so a racing process never reads half a key."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not path.exists():
            import secrets  # only to create the key: reading it (every repeat open) needs no random source

            tmp = path.with_name(f".{KEY_FILE}-{secrets.token_hex(8)}")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            try:
                with os.fdopen(fd, "wb") as handle:
                    handle.write(secrets.token_bytes(KEY_BYTES))
                with contextlib.suppress(FileExistsError):
                    os.link(tmp, path)
            finally:
                os.unlink(tmp)
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as handle:
            key = handle.read()
    except OSError:
        return None
    return key if len(key) == KEY_BYTES else None
