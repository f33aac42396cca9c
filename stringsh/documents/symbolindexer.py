"""Building and refreshing the persistent symbol index (symbolstore.py) in a running process: the daemon, the MCP
servers and the REPL start one `Indexer` per workspace (`start_indexing`); a one-shot `-c` never builds, it uses what
exists.

A pass walks the whole workspace on the engine's confined walk (`Workspace.search_walk`: the grep permission, the
walk's rules, one audit record `symbols --index` per pass), parses each source file whose identity differs from its
row (or has none), stores its rows, and forgets the rows of files the walk no longer offers. The first pass runs at
start-up in a background thread; the file watcher (watchdog, one recursive watch on the root) wakes the next pass
when a source file, a `.gitignore` or a folder changes. Searches never wait for a pass: what the index does not hold
as the walk sees it is read and parsed as before.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from stringsh.documents.symbolsearch import WORDS, remember
from stringsh.documents.symbolstore import Walked, folder_identity, store_for
from stringsh.errors import StringError
from stringsh.render.code.extract import extract
from stringsh.render.code.languages import language_of
from stringsh.workspace import decode

if TYPE_CHECKING:
    from stringsh.documents.symbolstore import Identity, SymbolStore
    from stringsh.render.code.extract import Extracted
    from stringsh.workspace import SearchFile, Traversal, Workspace

#: Files stored per transaction (a search waits at most for one batch's write).
BATCH = 64
#: Seconds the watcher lets a burst of changes settle before the next pass.
SETTLE_SECONDS = 0.3


@dataclass
class Pass:
    """What one pass did: files parsed and stored, files found unchanged, rows dropped, and whether it finished."""

    parsed: int = 0
    unchanged: int = 0
    dropped: int = 0
    finished: bool = False
    #: False when the tree changed while it was walked (or nothing was known before it): another pass follows
    settled: bool = True


def words_of(shown: bytes) -> bytes:
    """The runs of word characters of a file's text as shown, lowercased, once each: every name a search's needle
    can be part of (a needle is itself such a run, so it lies inside one)."""
    return b"\n".join(set(WORDS.findall(shown.lower())))


def index_file(ws: Workspace, found: SearchFile) -> tuple[str, bytes, bool, Extracted] | str:
    """(sha256, words, plain: no byte of it can be masked, extraction) of a walked source file, or why it is not
    stored: `never` when it cannot be read as text (a search never counts it either), `masked` when masking would
    change its text (a secret never reaches the index), `unparsed` when its parse ran out of time (parsed again
    when searched)."""
    raw = found.read() if language_of(found.rel) is not None else None
    if raw is None:
        return "never"
    try:
        text = decode(raw, found.rel)[0]
    except StringError:
        return "never"
    language = language_of(found.rel, text)  # a `.h` is C or C++ by its content
    assert language is not None
    shown = raw
    plain = not ws.redactor.may_mask(raw)
    if not plain:
        if ws.redact_lines(text) != text:
            return "masked"
        shown = text.encode("utf-8", "surrogatepass")  # as a search sees it (symbolsearch._load)
    extracted = extract(text, language)
    if extracted.index.unparsed:
        return "unparsed"
    return hashlib.sha256(raw).hexdigest(), words_of(shown), plain, extracted


def build(ws: Workspace, store: SymbolStore, stop: threading.Event | None = None) -> Pass:
    """One pass over the workspace (see the module docstring); stops early, unfinished, when `stop` is set. A pass
    that finished with nothing changed meanwhile, no read failing and every file held leaves its walk in the store
    (`SymbolStore.walked`): searches of the whole workspace then answer from it."""
    done = Pass()
    generation = store.generation
    before = _folders(ws, store.folder_names)
    known = store.snapshot()
    seen: set[str] = set()
    walked: list[tuple[str, Identity, str, Traversal]] = []
    ignores: list[str] = []
    clean = True
    batch: list[tuple[str, Identity, str, bytes, bool, Extracted]] = []
    with ws.search_walk(["."], command="symbols --index") as walking:
        for found in walking.files("."):
            if stop is not None and stop.is_set():
                store.put(batch)
                return done
            if found.rel.rpartition("/")[2] == ".gitignore":
                ignores.append(found.rel)
            if language_of(found.rel) is None or found.key is None:
                continue
            seen.add(found.rel)
            counts = walking.traversal()
            if known.known(found.rel, found.key) is not None:
                done.unchanged += 1
                walked.append((found.rel, found.key, "stored", counts))
                continue
            rows = index_file(ws, found)
            clean = clean and walking.traversal().skipped_io_errors == counts.skipped_io_errors and rows != "unparsed"
            if rows == "masked":
                clean = clean and remember(ws, found)
            if isinstance(rows, str):
                walked.append((found.rel, found.key, "remembered" if rows == "masked" else rows, counts))
                continue
            walked.append((found.rel, found.key, "stored", counts))
            batch.append((found.rel, found.key, *rows))
            done.parsed += 1
            if len(batch) >= BATCH:
                store.put(batch)
                batch = []
        store.put(batch)
        final = walking.traversal()
    limited = final.scan_limit_reason is not None
    if not limited:  # a walk cut short says nothing of the files it did not reach
        gone = [rel for rel in store.files() if rel not in seen]
        store.drop(gone)
        done.dropped = len(gone)
    done.finished = not limited
    after = _folders(ws, None, [rel for rel, _, _, _ in walked], ignores)
    if done.finished and after is not None:
        store.folder_names = set(after)
    if done.finished and clean and store.generation == generation and before is not None and before == after:
        store.walked = Walked(walked, final, generation, store.fingerprint, str(ws.root), after)
    else:
        done.settled = False  # the tree moved while it was walked (or this was the first pass): walk again
    return done


def _folders(ws: Workspace, last: set[str] | None, files: list[str] | None = None,
             ignores: list[str] = ()) -> dict[str, tuple[int, ...]] | None:  # type: ignore[assignment]
    """The identities of the root, the folders holding `files` (else the last pass's) and the `.gitignore` files:
    taken before a pass and after it, a pass whose tree did not move has the same. None when unknown."""
    if files is None:
        if last is None:
            return None
        names = last
    else:
        names = {"."} | {rel.rpartition("/")[0] or "." for rel in files} | set(ignores)
        for rel in list(names):
            while "/" in rel:
                rel = rel.rpartition("/")[0]
                names.add(rel)
    root = str(ws.root)
    found: dict[str, tuple[int, ...]] = {}
    for rel in sorted(names):
        try:
            found[rel] = folder_identity(os.lstat(os.path.join(root, rel)))
        except OSError:
            return None
    return found


class Indexer:
    """The background builder of one workspace's index: a first pass, then one after each settled burst of
    changes the watcher reports."""

    def __init__(self, ws: Workspace, store: SymbolStore) -> None:
        self.ws, self.store = ws, store
        self.wake = threading.Event()
        self.stopped = threading.Event()
        self.passes = 0
        self.last: Pass | None = None
        #: Set after each pass (tests and benchmarks wait on it).
        self.idle = threading.Event()
        self._observer: Any = None
        self._thread = threading.Thread(target=self._run, name="stringsh-symbol-index", daemon=True)

    def start(self) -> Indexer:
        self._thread.start()
        return self

    def _run(self) -> None:
        self._watch()
        self.wake.set()
        while not self.stopped.is_set():
            self.wake.wait()
            if self.stopped.is_set():
                break
            self.idle.clear()
            self.stopped.wait(SETTLE_SECONDS if self.passes else 0)
            self.wake.clear()
            try:
                self.last = build(self.ws, self.store, self.stopped)
            except Exception:  # a refused walk, a closed workspace: searches go on without the index
                self.last = Pass()
            self.passes += 1
            if (not self.last.finished or not self.last.settled) and not self.stopped.is_set():
                # cut short by the walk's time limit (the next pass goes on from the rows stored), or the tree
                # moved while it was walked
                self.wake.set()
                continue
            self.idle.set()

    def _watch(self) -> None:
        """One recursive watch on the root; without inotify (or past its limits) passes run only at start-up."""
        with contextlib.suppress(Exception):
            from watchdog.observers import Observer

            observer = Observer()
            observer.daemon = True
            observer.schedule(_Changes(self), str(self.ws.root), recursive=True)
            observer.start()
            self._observer = observer

    def stop(self) -> None:
        self.stopped.set()
        self.wake.set()
        observer, self._observer = self._observer, None
        if observer is not None:
            with contextlib.suppress(Exception):
                observer.stop()
                observer.join(timeout=5)
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=10)


class _Changes:
    """A watchdog handler waking the indexer for changes that can change its rows."""

    def __init__(self, indexer: Indexer) -> None:
        self.indexer = indexer

    def dispatch(self, event: Any) -> None:
        kind = event.event_type
        if kind in ("opened", "closed_no_write"):
            return
        for path in (event.src_path, getattr(event, "dest_path", "")):
            name = os.fsdecode(path)
            if not name:
                continue
            parts = name.split(os.sep)
            if ".git" in parts or ".stringsh" in parts:
                continue
            if kind not in ("modified", "closed") or parts[-1] == ".gitignore" or language_of(name) is not None:
                # a file made, removed or moved changes the walk's counts; a source file's change, its rows
                self.indexer.store.changed()
                self.indexer.wake.set()
                return


_INDEXERS: dict[str, Indexer] = {}
_LOCK = threading.Lock()


def start_indexing(ws: Workspace) -> Indexer | None:
    """Start (once per workspace and process) building and refreshing the symbol index in the background; None when
    the state folder cannot hold it."""
    store = store_for(ws)
    if store is None:
        return None
    with _LOCK:
        found = _INDEXERS.get(str(store.path))
        if found is None or found.stopped.is_set():
            found = _INDEXERS[str(store.path)] = Indexer(ws, store).start()
        return found


def stop_indexing() -> None:
    """Stop every indexer of this process (a server closing; tests)."""
    with _LOCK:
        indexers = list(_INDEXERS.values())
        _INDEXERS.clear()
    for indexer in indexers:
        indexer.stop()
