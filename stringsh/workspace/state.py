"""Where the engine keeps its state, and why there: nothing a workspace ships is ever believed.

Decision: the journal (with the previous bytes undo restores), the audit log and the lock live in the user's
state folder, one folder per workspace keyed by the workspace's real path:

    $XDG_STATE_HOME/stringsh/workspaces/<sha256(real path)[:32]>/     (0700, owned by the user)
        journal.db (+ -wal, -shm)   change sets and the previous bytes they replaced
        blobs/<sha256>              previous bytes of 128 KiB or more, one file each (blobfiles.py)
        audit.log                   the hash-chained audit records (audit.log.1: the older, rotated one)
        audit.head                  the current log's record count and newest hash (its end), the append lock
                                    (the journal anchors the head with every change set: journal.py)
        recovery-due                present while a change set may be in flight: a start opens the journal
                                    (journalfile.py); journal.marked: the journal follows that protocol
        lock                        flock between processes
        workspace                   the real path, for a person looking around
        identity                    which tree at that path it belongs to (identity.py): a folder re-created
                                    there gets a fresh state folder, this one renamed `<key>.replaced-<time>`

A repository cannot plant any of it. A committed `.stringsh/journal.db` is never opened (silently: it is simply
not where stringsh looks), so a pending change set it carries is never replayed. The alternative, keeping these
files in `.stringsh/` signed with the per-user key, still lets a clone bring back an old journal the same user
signed elsewhere, needs a MAC per row and an owner check per file, and leaves a planted link or FIFO one open()
away. The cost of the user's folder: a workspace that is moved or renamed starts a fresh journal (and so does a
tree re-created at the same path: the folder is keyed by the path but belongs to one tree).

What stays in the workspace's `.stringsh/`: shell spool files (a reply names `.stringsh/spool/<file>` and `/open`
reads it there), the index cache (entries signed with `cache_key`, rebuilt when they do not verify), the tree's
id (`workspace-id`, identity.py) and a `.gitignore`. That folder is created and opened without following
symlinks, private (0700); when something planted sits there (`.stringsh -> ../outside`), nothing is written
through it and changes are refused.

Every state file is opened with O_NOFOLLOW relative to a folder descriptor and must be a regular file (a FIFO is
refused at once, never waited on); a damaged journal is an INTERNAL_ERROR with a hint, never a traceback. A state
folder that is full, read-only, not writable or locked too long is a condition, not damage (journalfile.fault):
`read_only` then says why, reads go on, and every change is refused with the code until one gets through.
`EngineState` is the only code that knows these paths (and where the cache-signing key lives). It also owns what
a workspace must not share with another one in the same process: the fsync workers and the sandbox probe.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import fcntl
import functools
import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from stringsh.errors import StringError
from stringsh.workspace import atomic, identity
from stringsh.workspace.atomic import FsyncPool
from stringsh.workspace.audit import GENESIS, AuditFiles, AuditLog
from stringsh.workspace.clients import Client, own_client
from stringsh.workspace.context import CURRENT, DEFERRED, RequestContext, current
from stringsh.workspace.digest import sha256
from stringsh.workspace.journalfile import (
    JOURNAL_FILE,
    NEARLY_FULL,
    JournalUnavailable,
    fault,
    mark_in_flight,
    open_journal,
    recovery_due,
    settled,
)
from stringsh.workspace.oserrors import DENIED, FULL, coded, mount_of
from stringsh.workspace.paths import STATE_DIR, Confiner, spool_folder

if TYPE_CHECKING:
    import queue

    from stringsh.workspace.flockwait import FlockWait
    from stringsh.workspace.journal import Journal
    from stringsh.workspace.shell.providers import BwrapProbe
    from stringsh.workspace.userkey import UserKey

STATE_IGNORE = "# stringsh engine state (shell spool, index cache); not for version control\n*\n"
WORKSPACES = "workspaces"
AUDIT_FILE = "audit.log"
AUDIT_FILES = AuditFiles(AUDIT_FILE, f"{AUDIT_FILE}.1", "audit.head")
LOCK_FILE = "lock"
ROOT_NOTE = "workspace"
#: The errno values of a state folder that is full, read-only, unwritable or failing: changes wait, reads go on.
CONDITIONS = FULL | DENIED | {errno.EROFS, errno.EIO}
#: The codes of a condition that can clear without a restart (degraded mode: see `read_only`).
DEGRADED = frozenset({"NO_SPACE", "READ_ONLY", "IO_ERROR", "BUSY"})
LOCK_WAIT = 30.0
STATE_HINT = "It must be a folder you own, not a link; move it aside (or set STRINGSH_STATE_DIR) and retry."


def state_key(real: Path) -> str:
    """The folder name of a workspace's state: its real path hashed (fixed length, no path syntax)."""
    return sha256(os.fsencode(str(real))).hexdigest()[:32]


def state_folder(root: Path) -> Path:
    """The user's state folder of the workspace at `root` (a path only; for tools and tests)."""
    from stringsh.userdirs import state_dir

    return state_dir() / WORKSPACES / state_key(Path(os.path.realpath(root)))


class AuditNote:
    """What an audited block adds to its record: the change set it made, an outcome other than "ok" (an exit
    status such as `EXIT_1`; an exception's code is recorded without this)."""

    __slots__ = ("change", "outcome")

    def __init__(self) -> None:
        self.change: int | None = None
        self.outcome: str | None = None


class EngineState:
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
        self._lock_fd = -1
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

    @property
    def frontend(self) -> str:
        """The dialect of the request this call belongs to (the default for a library call)."""
        ctx = current()
        return ctx.dialect if ctx is not None else self.default_frontend

    @contextlib.contextmanager
    def request(self, dialect: str, op: str | None, topic: str, command: str | None = None,
                agent: str | None = None, paths: tuple[str, ...] = (),
                client: str | None = None) -> Iterator[RequestContext]:
        """One request: its context is current inside the block, and its one audit record is written when the
        block ends (outcome: the error code it raised, else what the front end or an operation set, else `ok`).
        Inside another request it adds nothing of its own: the outer request is what the user asked for, and
        gets the command and agent it lacks."""
        outer = current()
        if outer is not None:
            outer.command = outer.command if outer.command is not None else command
            outer.agent = outer.agent if outer.agent is not None else agent
            yield outer
            return
        ctx = RequestContext(dialect=dialect, op=op, topic=topic, client=client or self.client, command=command,
                             agent=agent, asked=paths)
        token = CURRENT.set(ctx)
        try:
            yield ctx
        except StringError as exc:
            ctx.outcome = exc.code
            raise
        except BaseException as exc:
            ctx.outcome = f"INTERNAL_ERROR:{type(exc).__name__}"
            raise
        finally:
            CURRENT.reset(token)
            self._record_request(ctx)

    def _record_request(self, ctx: RequestContext) -> None:
        record: dict[str, object] = {
            "time": round(time.time(), 6), "workspace": self.workspace_id, "topic": ctx.topic or "-",
            "frontend": ctx.dialect, "client": ctx.client, "op": loggable(ctx.op or ctx.dialect), "ops": ctx.ops,
            "paths": [loggable(path) for path in ctx.paths or ctx.asked], "outcome": ctx.outcome or "ok",
            "ms": round((time.perf_counter() - ctx.started) * 1000, 3),
        }
        if len(ctx.changes) == 1:
            record["change"] = ctx.changes[0]
        elif ctx.changes:
            record["changes"] = ctx.changes
        if ctx.summary is not None:
            record["command"] = loggable(ctx.summary)
        if ctx.agent is not None:
            record["agent"] = ctx.agent
        pending = DEFERRED.get()
        if pending is not None:
            pending.append(record)
        else:
            self._append(record)

    @contextlib.contextmanager
    def records_after_reply(self) -> Iterator[None]:
        """Requests that end inside the block have their audit records written when it ends: a front end sends
        the reply inside it, so a client's round trip does not wait for the log (its append costs more than the
        rest of a small request on an idle machine). Nothing is lost: the block ends right after the send."""
        if DEFERRED.get() is not None:
            yield
            return
        pending: list[dict[str, object]] = []
        token = DEFERRED.set(pending)
        try:
            yield
        finally:
            DEFERRED.reset(token)
            if pending:
                self._hand_over(pending)

    def _hand_over(self, records: list[dict[str, object]]) -> None:
        """Append `records` on the audit writer, one thread that appends in the order it is handed records: the
        next request need not wait for the log either. `flush_records` waits for it; `close` drains it. The log is
        opened here, so the writer never takes the state's lock (whoever closes the state holds it)."""
        try:
            log = self._writing_log()
        except (OSError, StringError) as exc:
            audit_failed(exc)
            return  # a read-only state folder must not stop reads
        writer = self._writer
        if writer is None:
            with self._made_lock:
                if self._writer is None:
                    self._writer = AuditWriter(log)
                writer = self._writer
        writer.put(records)

    def flush_records(self) -> None:
        """Wait until every record handed to the audit writer is in the log."""
        writer = self._writer
        if writer is not None:
            writer.flush()

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
            for fd in (self._lock_fd, self._dir_fd):
                if fd >= 0:
                    os.close(fd)
            self._lock_fd = self._dir_fd = -1
            self.fsync_pool.close()

    # -- paths ------------------------------------------------------------------------------------------------

    @property
    def path(self) -> Path:
        """This workspace's folder in the user's state folder; a path only (nothing is created by asking)."""
        if self._path is None:
            self._path = state_folder(self.confiner.real)
        return self._path

    @property
    def dir(self) -> Path:
        """The state folder, created (private, owner-checked) on first use."""
        self._folder_fd()
        return self.path

    @property
    def audit_path(self) -> Path:
        return self.path / AUDIT_FILE

    @property
    def journal_path(self) -> Path:
        return self.path / JOURNAL_FILE

    @property
    def spool_dir(self) -> Path:
        """Shell output spool files; a path only (the shell creates it, private and link-free, on first need)."""
        return spool_folder(self.confiner.real)

    @property
    def index_cache_dir(self) -> Path:
        """Disk part of the index cache; a path only. Reach it from the workspace root without following links."""
        return self.confiner.real / STATE_DIR / "cache" / "index"

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

    def has_journal(self) -> bool:
        """Whether this user's journal for the workspace exists (a `.stringsh/journal.db` in it never counts), and
        belongs to this tree: one another tree left at this path is moved aside first (identity.py)."""
        if self._journal is not None:
            return True
        if not os.path.lexists(self.journal_path):
            return False
        self.check_identity()
        return os.path.lexists(self.journal_path)

    def check_identity(self) -> None:
        """At start-up: when a state folder exists at this workspace's path but belongs to another tree (the folder
        was re-created), move it aside and say so on stderr, once. Creates nothing when there is none."""
        if self._keyed and self._dir_fd < 0 and os.path.isdir(self.path):
            with contextlib.suppress(StringError):  # an unusable folder is reported where it is used
                self._folder_fd()

    # -- folders ----------------------------------------------------------------------------------------------

    def _folder_fd(self) -> int:
        fd = self._dir_fd
        if fd >= 0:
            return fd
        with self.thread_lock:
            if self._dir_fd < 0:
                self._dir_fd = self._open_folder()
            return self._dir_fd

    def _open_folder(self) -> int:
        """The per-workspace folder: its parent is the user's own (links there are the user's), the folder itself
        is opened without following a link, created 0700, and must belong to this user. A folder another tree left
        at this path is moved aside first (identity.py), under a lock on the parent every mover takes."""
        path = self.path
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            parent = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            try:
                if self._keyed:
                    fcntl.flock(parent, fcntl.LOCK_EX)  # released when closed
                fd = self._own_folder(parent, path)
                if self._keyed:
                    fd = self._same_tree(parent, fd, path)
            finally:
                os.close(parent)
        except OSError as exc:
            if exc.errno in CONDITIONS:  # a full, read-only, unwritable or failing disk: degraded, not broken
                raise self._degrade(fault(path, exc)) from None
            raise StringError(
                "INTERNAL_ERROR", f"stringsh cannot use its state folder {path}: {exc.strerror or exc}", STATE_HINT
            ) from None
        try:
            with contextlib.suppress(OSError):
                _create_once(fd, ROOT_NOTE, f"{self.confiner.real}\n")
        except BaseException:
            os.close(fd)
            raise
        return fd

    @staticmethod
    def _own_folder(parent: int, path: Path) -> int:
        """The state folder under `parent`, created 0700 when missing; refused when another user owns it."""
        fd = atomic.open_folders(parent, [path.name], create=True)
        try:
            if os.fstat(fd).st_uid != os.geteuid():
                raise StringError(
                    "INTERNAL_ERROR", f"stringsh cannot use its state folder {path}: another user owns it", STATE_HINT
                )
            atomic.make_private(fd)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _same_tree(self, parent: int, fd: int, path: Path) -> int:
        """`fd` when the state folder belongs to the tree at the root (or to none yet); else the folder is moved
        aside (kept, never replayed), the person told once on stderr, and a fresh one opened."""
        try:
            reason = identity.mismatch(fd, self.confiner.root_fd, self.confiner.real)
        except BaseException:
            os.close(fd)
            raise
        if reason is None:
            return fd
        os.close(fd)
        aside = identity.move_aside(parent, path.name)
        print(f"stringsh: this folder is not the workspace the journal knew ({reason}); its history was kept aside "
              f"in {path.parent / aside}", file=sys.stderr)
        return self._own_folder(parent, path)

    def _stamp(self, local_fd: int | None) -> None:
        """Record (once per process) which tree the state folder belongs to; `local_fd`: the workspace's
        `.stringsh/`, None when it cannot be written."""
        if self._stamped or not self._keyed:
            return
        with self.thread_lock:
            if not self._stamped:
                try:
                    identity.stamp(self._folder_fd(), self.confiner.root_fd, local_fd)
                except OSError:
                    return  # a read-only state folder: the journal cannot be written either
                self._stamped = local_fd is not None

    def _open_file(self, name: str, flags: int) -> int:
        try:
            return atomic.open_state_file(self._folder_fd(), name, flags)
        except OSError as exc:
            if exc.errno in CONDITIONS:
                raise self._degrade(fault(self.path / name, exc)) from None
            raise StringError(
                "INTERNAL_ERROR", f"stringsh cannot use its state file {self.path / name}: {exc.strerror or exc}",
                STATE_HINT,
            ) from None

    def workspace_folder(self) -> None:
        """Make sure the workspace's own `.stringsh/` (spool, index cache) is a private folder with its
        `.gitignore`, never following a planted link; NOT_PERMITTED when something else is there."""
        if self._local_ready:
            return
        try:
            fd = atomic.open_folders(self.confiner.root_fd, [STATE_DIR], create=True)
        except OSError:
            raise StringError("NOT_PERMITTED", f"{STATE_DIR}/ is not a folder stringsh can use.",
                              f"Move the {STATE_DIR} file away; stringsh keeps its state in that folder.") from None
        try:
            atomic.make_private(fd)
            with contextlib.suppress(OSError):
                _create_once(fd, ".gitignore", STATE_IGNORE)
            self._stamp(fd)
        finally:
            os.close(fd)
        self._local_ready = True

    # -- journal and lock -------------------------------------------------------------------------------------

    @property
    def journal(self) -> Journal:
        with self.thread_lock:
            if self._journal is None:
                try:
                    self._journal = self.open_journal()
                except JournalUnavailable as exc:
                    raise self._degrade(exc) from None
            return self._journal

    def open_journal(self) -> Journal:
        """Open this workspace's journal (journalfile.open_journal; JournalUnavailable when it cannot be used), its
        change sets marked in flight beside it (journalfile.py). Called once, on first use."""
        folder = self._folder_fd()
        # a journal is only kept for a tree the folder records: by its root's inode until the first change makes
        # the workspace's `.stringsh/` (workspace_folder) and leaves the tree's id there
        self._stamp(None)
        journal = open_journal(folder, self.path, self.client)
        journal.audit_head = self.audit_head
        journal.before_pending = lambda: self._mark_in_flight(folder)
        return journal

    def recovery_due(self) -> bool:
        """Whether a start must open the journal to finish a change set a crash cut short (journalfile.py): a few
        stats, no open; False when nothing is there yet."""
        return recovery_due(self.path)

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Exclusive across threads and processes; re-entrant within a thread. Recovers crashed change sets."""
        with self.thread_lock:
            if self._depth == 0:
                if self._lock_fd < 0:
                    self._lock_fd = self._open_file(LOCK_FILE, os.O_RDWR | os.O_CREAT)
                self._take_lock()
            self._depth += 1
            try:
                if self._depth == 1:
                    from stringsh.workspace import changes

                    self._wrote = False
                    pending = self.journal.pending()
                    self._unsettled = self._unsettled or bool(pending)
                    for cs in pending:
                        changes.recover(self.journal, self.confiner, cs, self.fsync_pool)
                yield
                if self._depth == 1 and self._wrote:
                    self.read_only = None  # a change set was written: whatever stopped changes has cleared
            except JournalUnavailable as exc:
                raise self._degrade(exc) from None
            finally:
                self._depth -= 1
                if self._depth == 0:
                    try:
                        self._settle()
                    finally:
                        fcntl.flock(self._lock_fd, fcntl.LOCK_UN)

    def _take_lock(self) -> None:
        """flock the workspace lock, waiting at most `lock_wait` seconds for another process to let it go (woken
        the moment it does: flockwait.py); then BUSY (and degraded until a change gets through), never a wait
        without end. The caller holds `thread_lock`: one wait per process at a time."""
        try:
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            pass
        from stringsh.workspace.flockwait import FlockWait  # only when another process holds the lock

        wait = self._lock_waiter
        taken = wait.claim(self.lock_wait) if wait is not None and wait.reusable else None
        if taken is None:
            self._lock_waiter = wait = FlockWait(self._lock_fd)
            taken = wait.claim(self.lock_wait)
        if taken:
            return
        raise self._degrade(JournalUnavailable(
            self.path / LOCK_FILE, "locked", "BUSY",
            f"Another process has held the workspace lock {self.path / LOCK_FILE} for over {self.lock_wait:g} s; "
            "nothing was written.",
            "Wait for the other stringsh to finish (or stop it), then retry; reads still work.",
            "the workspace is locked by another process",
        ))

    def _degrade(self, exc: JournalUnavailable) -> JournalUnavailable:
        """Remember why changes are refused (the toolbar shows it) when it is a condition that can clear."""
        if exc.code in DEGRADED:
            self.read_only = exc.why
        return exc

    def probe(self) -> str | None:
        """At start-up: why the state folder cannot take a change (read-only, unwritable, full), or None; a few
        stats of the folder, or of its nearest existing parent when it is not made yet. Sets `read_only`."""
        folder = self.path
        while not folder.is_dir() and folder.parent != folder:
            folder = folder.parent
        try:
            st = os.statvfs(folder)
        except OSError:
            return self.read_only
        if st.f_flag & os.ST_RDONLY:
            why: str | None = f"the state folder {self.path} is on a read-only file system"
        elif not os.access(folder, os.W_OK):
            why = f"the state folder {folder} is not writable"
        elif st.f_bavail * st.f_frsize < NEARLY_FULL:
            why = f"no space left for the journal on {mount_of(folder)}"
        else:
            why = None
        self.read_only = self.read_only or why
        return self.read_only

    def _mark_in_flight(self, folder: int) -> None:
        """Journal.begin's first step: a start opens the journal until this lock ends with nothing pending."""
        self._unsettled = True
        mark_in_flight(folder, self.path)
        self._wrote = True

    def _settle(self) -> None:
        """Lock still held: when no change set is pending any more, a start need not open the journal (the
        `recovery-due` marker goes). Any doubt leaves the marker: it costs the next start one opening."""
        journal = self._journal
        if journal is None or not self._unsettled:
            return
        try:
            if journal.pending():
                return
        except Exception:  # a journal that cannot say keeps the marker: recovery stays due
            return
        settled(self._folder_fd(), stamp=not self._stamped_journal)
        self._unsettled = False
        self._stamped_journal = True

    # -- audit ------------------------------------------------------------------------------------------------

    @functools.cached_property
    def workspace_id(self) -> str:
        """The workspace in audit records: its state folder's key (stable while the workspace is not moved)."""
        return state_key(self.confiner.real)

    @contextlib.contextmanager
    def audited(self, op: str, paths: list[str], topic: str | None, command: str | None = None) -> Iterator[AuditNote]:
        """One engine operation: inside a request it is added to the request's one record (context.py); outside
        any request (a library call) it is recorded on its own, with its outcome (ok, the note's outcome or the
        error code, never the message: it may quote the file) and duration. An OSError that escapes the operation
        leaves it as a coded error with the path (oserrors.py). `command` must already be a summary
        (audit.summarize_command): it is written as given."""
        started = time.perf_counter()
        note = AuditNote()
        outcome = "ok"
        raised = False
        try:
            yield note
            outcome = note.outcome or outcome
        except StringError as exc:
            outcome, raised = exc.code, True
            raise
        except OSError as exc:  # the file system said no, or the tree changed while walked: a coded error
            error = coded(exc, paths, self.confiner.real)
            outcome, raised = (error.code if error else f"INTERNAL_ERROR:{type(exc).__name__}"), True
            if error is None:
                raise
            raise error from None
        except BaseException as exc:
            outcome, raised = f"INTERNAL_ERROR:{type(exc).__name__}", True
            raise
        finally:
            ctx = current()
            if ctx is not None:
                ctx.note(op, paths, note.change, command, None if raised or outcome == "ok" else outcome)
            else:
                self.record(op, paths, topic, outcome, (time.perf_counter() - started) * 1000, note.change, command)

    def record(self, op: str, paths: list[str], topic: str | None, outcome: str, ms: float,
               change: int | None, command: str | None = None) -> None:
        """The record of one operation made outside any request (the library API)."""
        record: dict[str, object] = {
            "time": round(time.time(), 6), "workspace": self.workspace_id, "topic": topic or "-",
            "frontend": self.frontend, "op": op, "paths": [loggable(path) for path in paths], "outcome": outcome,
            "ms": round(ms, 3),
        }
        if change is not None:
            record["change"] = change
        if command is not None:
            record["command"] = loggable(command)
        self._append(record)

    def audit_head(self) -> tuple[int, str]:
        """The audit log's head (record count, newest hash), for the journal's anchor: one short read."""
        try:
            return self._log().head()
        except (OSError, StringError):
            return 0, GENESIS

    def _log(self) -> AuditLog:
        """The audit log, opened on first use. Every request hands its record over through here, so it never
        takes `thread_lock` once the folder is open: a write holds that lock for its fsyncs."""
        log = self._audit
        if log is not None:
            return log
        folder = self._folder_fd()  # before `_made_lock`: opening the folder takes `thread_lock`
        with self._made_lock:
            if self._audit is None:
                self._audit = AuditLog(folder, AUDIT_FILES)
            return self._audit

    def _writing_log(self) -> AuditLog:
        """The log a record is about to be appended to: a used workspace has its `.stringsh/` (as before the
        state moved)."""
        with contextlib.suppress(OSError, StringError):
            self.workspace_folder()
        return self._log()

    def _append(self, record: dict[str, object]) -> None:
        # a read-only or full state folder must not stop reads; it is said once on stderr (audit_failed)
        try:
            self._writing_log().append(record)
        except (OSError, StringError) as exc:
            audit_failed(exc)
        else:
            audit_failed(None)


def loggable(text: str) -> str:
    """`text` as a UTF-8 log line can hold it: a lone surrogate (a file name that is not UTF-8) as `\\udcff`."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


class AuditWriter:
    """One thread appending the records handed to it, in order; a put costs the request thread about a
    microsecond. A handed event is set once everything before it is written (flush)."""

    def __init__(self, log: AuditLog) -> None:
        import queue  # only a front end that answers before it logs (the daemon, the servers) has a writer

        self.log = log
        self.queue: queue.SimpleQueue[list[dict[str, object]] | threading.Event | None] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._run, name="stringsh-audit", daemon=True)
        self.thread.start()
        atexit.register(self.close)  # a front end that exits without closing its workspace still writes them all

    def put(self, records: list[dict[str, object]]) -> None:
        self.queue.put(records)

    def flush(self) -> None:
        done = threading.Event()
        self.queue.put(done)
        done.wait()

    def close(self) -> None:
        atexit.unregister(self.close)
        if self.thread.is_alive():
            self.queue.put(None)
            self.thread.join()

    def _run(self) -> None:
        while (item := self.queue.get()) is not None:
            if isinstance(item, threading.Event):
                item.set()
                continue
            for record in item:
                try:
                    self.log.append(record)
                except (OSError, StringError) as exc:
                    audit_failed(exc)
                else:
                    audit_failed(None)


_AUDIT_SILENT: list[str] = []  # the reason already said on stderr, while the audit log stays unwritable


def audit_failed(exc: BaseException | None) -> None:
    """An audit record could not be written (`exc`), or one was (None): the person is told once on stderr when
    records start being lost (a full or read-only state folder), and once when they are written again."""
    if exc is None:
        if _AUDIT_SILENT:
            _AUDIT_SILENT.clear()
            print("stringsh: the audit log is written again", file=sys.stderr)
        return
    if not _AUDIT_SILENT:
        reason = exc.message if isinstance(exc, StringError) else (exc.strerror or str(exc))
        _AUDIT_SILENT.append(reason)
        print(f"stringsh: the audit log could not record a request ({reason}); it will not until that clears",
              file=sys.stderr)


def _create_once(dir_fd: int, name: str, text: str) -> None:
    """Write a small file that does not exist yet; an existing one (or a link planted there) is left alone."""
    fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=dir_fd)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
