"""The engine's state: `EngineState` composes the state folder (statefolder.py: where the journal, audit log and
lock live, and why there; which tree the folder belongs to), the lock, recovery and degraded mode (statelock.py)
and the request and its audit records (staterecords.py, auditwriter.py). It also owns what a workspace must not
share with another one in the same process: the fsync workers, the sandbox probe and the user's signing key.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stringsh.workspace.atomic import FsyncPool
from stringsh.workspace.auditwriter import AuditWriter, audit_failed, loggable
from stringsh.workspace.clients import Client, own_client
from stringsh.workspace.journalfile import JOURNAL_FILE
from stringsh.workspace.statefolder import (
    AUDIT_FILE,
    AUDIT_FILES,
    LOCK_FILE,
    STATE_HINT,
    WORKSPACES,
    StateFolder,
    state_folder,
    state_key,
)
from stringsh.workspace.statelock import DEGRADED, LOCK_WAIT, StateLock
from stringsh.workspace.staterecords import AuditNote, StateRecords

if TYPE_CHECKING:
    from stringsh.workspace.audit import AuditLog
    from stringsh.workspace.flockwait import FlockWait
    from stringsh.workspace.groupcommit import GroupCommit
    from stringsh.workspace.journal import Journal
    from stringsh.workspace.paths import Confiner
    from stringsh.workspace.shell.providers import BwrapProbe
    from stringsh.workspace.userkey import UserKey

#: Importable from here as before the split (upper layers move to the facade: workspace/__init__.py).
__all__ = ["AUDIT_FILE", "AUDIT_FILES", "DEGRADED", "JOURNAL_FILE", "LOCK_FILE", "LOCK_WAIT", "STATE_HINT",
           "WORKSPACES", "AuditNote", "AuditWriter", "EngineState", "StateFolder", "audit_failed", "loggable",
           "state_folder", "state_key"]


class EngineState(StateLock, StateRecords):
    """Created lazily: nothing exists until the first audited operation (the audit log) or change (the journal)."""

    def __init__(self, confiner: Confiner, state_dir: Path | None, frontend: str,
                 client: Client | None = None) -> None:
        """`state_dir` replaces the per-workspace folder in the user's state folder (the files go in it directly);
        `client`: who this process is in the journal (clients.py; default: a client of this process alone)."""
        self.confiner = confiner
        #: The front end this process serves (`string`, `operator`, `tools`, `mcp`), for calls made outside any
        #: request (the library API); a request names its own dialect (context.py).
        self.default_frontend = frontend
        #: This client in the journal: `/undo` takes back only its changes. Named, a terminal session's (which a
        #: later `stringsh -c` in that session shares) or this process's own (a restart starts with nothing to undo).
        picked = client or own_client()
        self.client = picked.name
        #: Whether the client outlives this process: then `/undo` in main also walks its `operator`/`tools` runs.
        self.client_lasting = picked.lasting
        self.thread_lock = threading.RLock()
        #: Guards making the objects made once and then only read (the audit log and its writer, the sandbox probe,
        #: the user's key): never held around the journal's work or a file lock, so a request needing one of them
        #: never waits behind a write that holds `thread_lock` for its fsyncs, or waits for another process.
        self._made_lock = threading.Lock()
        self.fsync_pool = FsyncPool()
        self._bwrap_probe: BwrapProbe | None = None
        self._user_key: UserKey | None = None
        self._path = state_dir
        self._keyed = state_dir is None  # only a folder found by the path is checked against the tree (identity.py)
        self._stamped = False
        self._dir_fd = -1
        self._local_ready = False
        self._depth = 0
        self._owner = 0  # the thread holding the workspace lock (groupcommit.py asks: a holder never queues)
        #: This process's writers queued for the lock (groupcommit.GroupCommit, made by ops/grouped.py on first use).
        self.edit_group: GroupCommit[Any] | None = None
        self._lock_fd = -1
        self._wants_fd = -1
        self._lock_waiter: FlockWait | None = None
        self._journal: Journal | None = None
        #: Whether the `recovery-due` marker may need removing at the end of the lock: a process's first lock
        #: (a crash or a planted file may have left one), a change set begun or a crashed one recovered since.
        self._unsettled = True
        self._stamped_journal = False  # `journal.marked` written by this process
        self._audit: AuditLog | None = None
        self._writer: AuditWriter | None = None  # records_after_reply's
        #: Why changes are refused now (the state folder is full, read-only, unwritable or locked), None when they
        #: are not: set at start (`probe`) and by each refusal, cleared by the next change set written.
        self.read_only: str | None = None
        self._wrote = False  # a change set was begun under the current lock
        #: Seconds a change waits for another process's workspace lock before it is refused (BUSY).
        self.lock_wait = LOCK_WAIT

    def close(self) -> None:
        writer = self._writer
        if writer is not None:
            writer.close()  # every handed-over record is written before the log closes
        with self.thread_lock:
            self._writer = None
            if self._journal is not None:
                self._journal.close()
                self._journal = None
            if self._audit is not None:
                self._audit.close()
                self._audit = None
            for fd in (self._lock_fd, self._wants_fd, self._dir_fd):
                if fd >= 0:
                    os.close(fd)
            self._lock_fd = self._wants_fd = self._dir_fd = -1
            self.fsync_pool.close()

    def cache_key(self) -> bytes | None:
        """This user's secret for signing index-cache entries (created on first use); None: no disk cache."""
        key = self._user_key
        if key is not None:
            return key.get()
        with self._made_lock:
            if self._user_key is None:
                from stringsh.workspace.userkey import UserKey

                self._user_key = UserKey()
            key = self._user_key
        return key.get()

    @property
    def bwrap_probe(self) -> BwrapProbe:
        """Whether bubblewrap works here, asked once per workspace (not once per process)."""
        probe = self._bwrap_probe
        if probe is not None:
            return probe
        with self._made_lock:
            if self._bwrap_probe is None:
                from stringsh.workspace.shell.providers import BwrapProbe

                self._bwrap_probe = BwrapProbe()
            return self._bwrap_probe
