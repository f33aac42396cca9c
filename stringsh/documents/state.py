"""Per-workspace document state a dispatcher owns: the index cache and the file watcher (no process globals)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from stringsh.render.cache import IndexCache
    from stringsh.render.watch import Watcher


def make_index_cache(root: Path) -> IndexCache:
    """The one place the index cache's folder and signing key are chosen.

    Disk entries live in `<root>/.stringsh/cache/index/`, reached from the root without following symlinks; they
    are signed with this user's key in the config folder (`cache.key`), read on the first disk access only.
    """
    from stringsh.render.cache import IndexCache, read_or_create_key
    from stringsh.userdirs import config_dir

    return IndexCache(
        root / ".stringsh" / "cache" / "index", key=lambda: read_or_create_key(config_dir() / "cache.key"), base=root
    )


class DocumentState:
    """Shared by every topic of one dispatcher; both parts are made on first use and the watcher stops on close."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._lock = threading.Lock()
        self._cache: IndexCache | None = None
        self._watcher: Watcher | None = None

    @property
    def index_cache(self) -> IndexCache:
        with self._lock:
            if self._cache is None:
                self._cache = make_index_cache(self.root)
            return self._cache

    @property
    def watcher(self) -> Watcher:
        with self._lock:
            if self._watcher is None:
                from stringsh.render.watch import Watcher

                self._watcher = Watcher()
            return self._watcher

    def close(self) -> None:
        """Stop the watcher's observer thread (views still open keep working: staleness falls back to hashes)."""
        with self._lock:
            watcher, self._watcher = self._watcher, None
        if watcher is not None:
            watcher.stop()
