"""The index cache, keyed by content hash: in memory for every topic of a process, on disk under `.stringsh/cache/`.

A repeat open of an unchanged file, even from a new `stringsh -c` process, loads a small marshal blob instead of
scanning the text again. The cache is an optimisation only: a missing, stale or corrupt entry is rebuilt silently.
"""

from __future__ import annotations

import marshal
import os
import tempfile
import threading
from collections import OrderedDict
from pathlib import Path

from stringsh.render.index import INDEX_VERSION, DocIndex, build_index

MEMORY_ENTRIES = 64
#: Documents smaller than this are indexed faster than a disk entry is written; they stay in memory only.
DISK_MIN_BYTES = 16 * 1024


class IndexCache:
    """sha256 → DocIndex; safe to share between topics and threads."""

    def __init__(self, directory: Path | str | None) -> None:
        self.directory = Path(directory) if directory is not None else None
        self._memory: OrderedDict[str, DocIndex] = OrderedDict()
        self._lock = threading.Lock()

    def _path(self, sha256: str) -> Path | None:
        if self.directory is None or len(sha256) < 16 or not sha256.isalnum():
            return None
        return self.directory / f"{sha256}.v{INDEX_VERSION}.idx"

    def lookup(self, sha256: str) -> DocIndex | None:
        """The index of a content hash from memory or disk, None when it was never built."""
        with self._lock:
            index = self._memory.get(sha256)
            if index is not None:
                self._memory.move_to_end(sha256)
                return index
        index = self._load(sha256)
        if index is not None:
            with self._lock:
                self._memory[sha256] = index
                while len(self._memory) > MEMORY_ENTRIES:
                    self._memory.popitem(last=False)
        return index

    def get(self, sha256: str, text: str, lines: list[str] | None = None) -> DocIndex:
        """The index of a text, built (and stored) on a miss."""
        index = self.lookup(sha256)
        if index is None:
            index = build_index(text, lines)
            self.put(sha256, index, len(text))
        return index

    def put(self, sha256: str, index: DocIndex, size: int) -> None:
        """Remember an index computed elsewhere (a block edit updates the old one instead of re-scanning)."""
        if size >= DISK_MIN_BYTES:
            self._store(sha256, index)
        with self._lock:
            self._memory[sha256] = index
            while len(self._memory) > MEMORY_ENTRIES:
                self._memory.popitem(last=False)

    def _load(self, sha256: str) -> DocIndex | None:
        path = self._path(sha256)
        if path is None:
            return None
        try:
            data = path.read_bytes()
            return DocIndex.from_tuple(marshal.loads(data))
        except (OSError, ValueError, EOFError, TypeError):
            return None

    def _store(self, sha256: str, index: DocIndex) -> None:
        path = self._path(sha256)
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".idx-")
            with os.fdopen(fd, "wb") as handle:
                handle.write(marshal.dumps(index.to_tuple()))
            os.replace(tmp, path)
        except (OSError, ValueError):
            pass  # a read-only or full disk only costs speed


_CACHES: dict[str, IndexCache] = {}
_CACHES_LOCK = threading.Lock()


def cache_for(root: Path | str | None) -> IndexCache:
    """The process-wide cache of a workspace root (its disk part lives in `<root>/.stringsh/cache/index/`)."""
    key = str(root) if root is not None else ""
    with _CACHES_LOCK:
        cache = _CACHES.get(key)
        if cache is None:
            directory = Path(root) / ".stringsh" / "cache" / "index" if root is not None else None
            cache = _CACHES[key] = IndexCache(directory)
        return cache
