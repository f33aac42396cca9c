"""Change sets queued for the next holder of the workspace lock: group commit across processes.

Every change pays two flushes of the disk under the workspace lock: the journal record and the new file's bytes
before the rename (`seal`), the rename after it (the folder's fsync). Processes do not share a thread to batch
them, so they share the lock instead. An in-place edit whose writer finds other processes waiting for the lock
(each waiter holds a shared flock on `lock.wants` while it waits; statelock.py) is not made durable at once: its
change sets are recorded `queued` (journal committed, not fsynced) and its new bytes written to its temp file (not
fsynced, not renamed), and the lock goes to the next writer. A writer that edits the same file next computes on
the queued bytes (`queued_bytes`), so its change chains onto them. Whoever takes the lock for anything else,
the writers waiting for their queued changes included, first puts every queued change in place (`flush`): one
seal (the journal, and the newest temp file of each file), one rename per file, one folder fsync, then each change
set marked done. A writer returns once its change set is done, as before.

Why it is safe. No workspace file is replaced before the journal records its previous bytes durably: a rename
happens only in `flush`, after the seal. Queued change sets hold their previous bytes (the chain's first, the
file's; each later one's, the newer queued bytes), so each stays undoable alone. kill -9 of a writer that queued:
its change is put in place by the next lock holder (after: the journal knows, done). kill -9 inside a flush: the
change sets are still queued, or pending chains recovery settles (changes.recover_all: rolled forward when the
newest bytes are in place). A power loss loses at most queued records and temp files nobody renamed: the files
are as they were. A queued temp file whose bytes no longer hash to its row, or a file changed meanwhile by
something that does not queue (an older stringsh, another program), rolls the chain back: its writers are told
CONFLICT, nothing is overwritten.
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING

from stringsh.errors import StringError
from stringsh.workspace import atomic, changes
from stringsh.workspace.atomic import sha256
from stringsh.workspace.journalrows import FileRow, loaded, stored

if TYPE_CHECKING:
    from stringsh.workspace.journal import Journal
    from stringsh.workspace.paths import Confiner, Resolved


def queued_bytes(journal: Journal, confiner: Confiner, rel: str) -> tuple[bool, bytes | None]:
    """(whether a change of `rel` is queued, the newest queued bytes when its temp file still holds exactly them)."""
    row = journal.db.execute(
        "SELECT c.id, f.new_sha FROM changesets c JOIN files f ON f.cs = c.id WHERE c.state='queued' AND f.path=? "
        "ORDER BY c.id DESC LIMIT 1", (stored(rel),)).fetchone()
    if row is None:
        return False, None
    return True, _temp_bytes(confiner, rel, row[0], row[1])


def intact(journal: Journal, confiner: Confiner) -> bool:
    """Whether the newest queued bytes of every file still wait in their temp files (else a writer does not queue onto
    them: it puts them in place, or settles them, first)."""
    rows = journal.db.execute(
        "SELECT f.path, MAX(c.id), f.new_sha FROM changesets c JOIN files f ON f.cs = c.id WHERE c.state='queued' "
        "GROUP BY f.path").fetchall()
    return all(_temp_bytes(confiner, loaded(path), cs, sha) is not None  # type: ignore[arg-type]
               for path, cs, sha in rows)


def _temp_bytes(confiner: Confiner, rel: str, cs: int, sha: str | None) -> bytes | None:
    try:
        with confiner.resolve(rel, create=True) as res:
            data, _ = atomic.read_at(res.parent_fd, atomic.temp_name(cs, 0), rel)
    except (StringError, OSError):
        return None
    return data if sha is not None and sha256(data) == sha else None


def flush(journal: Journal, confiner: Confiner, queued: list[int], pool: atomic.FsyncPool) -> None:
    """Under the lock: put every queued change in place, file by file (see the module docstring)."""
    chains: dict[str, list[tuple[int, FileRow]]] = {}
    for cs in queued:
        rows = journal.files(cs)
        if len(rows) == 1 and rows[0].prev_size is None:
            chains.setdefault(rows[0].path, []).append((cs, rows[0]))
        else:  # only one-file rewrites queue; anything else is settled as recovery would
            changes.recover_all(journal, confiner, [cs], pool)
    for path, chain in chains.items():
        _flush_chain(journal, confiner, pool, path, chain)


def _flush_chain(journal: Journal, confiner: Confiner, pool: atomic.FsyncPool, path: str,
                 chain: list[tuple[int, FileRow]]) -> None:
    ids = [cs for cs, _ in chain]
    res: Resolved | None = None
    with contextlib.suppress(StringError, OSError):
        res = confiner.resolve(path, create=True)
    try:
        newest = -1
        if res is not None and res.rel == path and not res.missing:
            current, _ = changes.current_bytes(res)
            if current is not None and sha256(current) == chain[0][1].prev_sha:
                newest = next((k for k in reversed(range(len(chain)))
                               if _temp_bytes(confiner, path, *_named(chain[k])) is not None), -1)
        if newest < 0:  # nothing to put in place, or the file is not what the chain started from
            changes.recover_all(journal, confiner, ids, pool)  # forward only when its newest bytes are there
            return
        last = ids[newest]
        temp = atomic.temp_name(last, 0)
        fd = os.open(temp, atomic.READ_FLAGS, dir_fd=res.parent_fd)  # type: ignore[union-attr]
        try:
            pool.fsync_all([fd], lambda: journal.seal(last, pool))
        finally:
            os.close(fd)
        atomic.commit(res.parent_fd, temp, res.name)  # type: ignore[union-attr]
        atomic.fsync_dirs([res.parent_fd], pool)  # type: ignore[union-attr]
        for k, cs in enumerate(ids):
            if k != newest:
                atomic.remove(res.parent_fd, atomic.temp_name(cs, 0))  # type: ignore[union-attr]
            journal.finish(cs, "done" if k <= newest else "rolled_back")
    finally:
        if res is not None:
            res.close()


def _named(link: tuple[int, FileRow]) -> tuple[int, str | None]:
    return link[0], link[1].new_sha
