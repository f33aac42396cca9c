"""Per-workspace document state a dispatcher owns: the index cache and the file watcher (no process globals)."""

from __future__ import annotations

import threading
from _weakref import ref  # weakref.ref itself: the weakref module cost a new process's first /open ~1 ms
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from stringsh.actions.http import HttpClients
    from stringsh.render.cache import IndexCache
    from stringsh.render.document import Document
    from stringsh.render.index import DocIndex
    from stringsh.render.watch import Watcher
    from stringsh.workspace import Workspace


def make_index_cache(workspace: Workspace) -> IndexCache:
    """The index cache of a workspace: its folder and signing key are the engine state's (`EngineState`), so no
    path under `.stringsh/` or key file is spelled out here. Disk entries are reached from the root without
    following symlinks; the key is asked for on the first disk access only."""
    from stringsh.render.cache import IndexCache

    return IndexCache(workspace.state.index_cache_dir, key=workspace.state.cache_key, base=workspace.root)


class DocumentState:
    """Shared by every topic of one dispatcher: the index cache, the file watcher and the HTTP clients of its
    actions, each made on first use; close stops the watcher and the clients."""

    def __init__(self, workspace: Workspace, *, watching: bool = True) -> None:
        self.workspace = workspace
        self.watching = watching  # whether views opened are watched (the loader's watcher)
        self._lock = threading.Lock()
        self._cache: IndexCache | None = None
        self._watcher: Watcher | None = None
        self._http: HttpClients | None = None
        self._spliced: ref[Document] | None = None

    @property
    def index_cache(self) -> IndexCache:
        with self._lock:
            if self._cache is None:
                self._cache = make_index_cache(self.workspace)
            return self._cache

    @property
    def watcher(self) -> Watcher:
        with self._lock:
            if self._watcher is None:
                from stringsh.render.watch import Watcher

                self._watcher = Watcher()
            return self._watcher

    @property
    def http_clients(self) -> HttpClients:
        with self._lock:
            if self._http is None:
                from stringsh.actions.http import HttpClients

                self._http = HttpClients()
            return self._http

    def spliced(self, doc: Document) -> None:
        """A block edit's page as spliced (held weakly: while its edit runs). The next block edit of a batch (group
        commit) finds the file holding exactly its text, and takes its blocks from it instead of parsing the page
        again under the workspace lock."""
        self._spliced = ref(doc)

    def index_as_spliced(self, text: str) -> DocIndex | None:
        """The index of the page last spliced when `text` is its text, else None."""
        doc = self._spliced() if self._spliced is not None else None
        return doc.index if doc is not None and doc.text == text else None

    def close(self) -> None:
        """Stop the watcher's observer thread (views still open keep working: staleness falls back to hashes) and
        close the HTTP clients' connections."""
        with self._lock:
            watcher, self._watcher = self._watcher, None
            http, self._http = self._http, None
        if watcher is not None:
            watcher.stop()
        if http is not None:
            http.close()
