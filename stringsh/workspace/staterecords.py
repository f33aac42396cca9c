"""The request and its audit records: `EngineState`'s part that says who asked for what.

A request (`request`) is what a user or agent asked for through one dialect: its context is current while it runs
(context.py), and it ends as one audit record naming its operations, paths, change sets and outcome. Each engine
operation (`audited`) adds itself to the request's record, or is recorded on its own outside any request (the
library API). Records are appended to the hash-chained log in the state folder (audit.py), by the request's thread
or, after a reply was sent, by the audit writer (auditwriter.py).
"""

from __future__ import annotations

import contextlib
import functools
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager

from stringsh.errors import StringError
from stringsh.workspace.audit import GENESIS, AuditLog
from stringsh.workspace.auditwriter import AuditWriter, audit_failed, loggable
from stringsh.workspace.context import CURRENT, DEFERRED, Ended, RequestContext, current
from stringsh.workspace.oserrors import coded
from stringsh.workspace.statefolder import AUDIT_FILES, StateFolder, state_key


class AuditNote:
    """What an audited block adds to its record: the change set it made, an outcome other than "ok" (an exit
    status such as `EXIT_1`; an exception's code is recorded without this)."""

    __slots__ = ("change", "outcome")

    def __init__(self) -> None:
        self.change: int | None = None
        self.outcome: str | None = None


class StateRecords(StateFolder):
    """Requests, audited operations and the audit log they are recorded in."""

    default_frontend: str
    client: str
    _made_lock: threading.Lock
    _audit: AuditLog | None
    _writer: AuditWriter | None

    @property
    def frontend(self) -> str:
        """The dialect of the request this call belongs to (the default for a library call)."""
        ctx = current()
        return ctx.dialect if ctx is not None else self.default_frontend

    def request(self, dialect: str, op: str | None, topic: str, command: str | None = None,
                agent: str | None = None, paths: tuple[str, ...] = (),
                client: str | None = None) -> AbstractContextManager[RequestContext]:
        """One request: its context is current inside the block, and its one audit record is written when the
        block ends (outcome: the error code it raised, else what the front end or an operation set, else `ok`).
        Inside another request it adds nothing of its own: the outer request is what the user asked for, and
        gets the command and agent it lacks. (A class, not a generator: every request of every front end opens
        one, and a generator's context manager costs twice as much.)"""
        return _Request(self, dialect, op, topic, command, agent, paths, client)

    def _record_request(self, ctx: RequestContext) -> None:
        ended: Ended = (time.time(), time.perf_counter() - ctx.started, ctx.topic, ctx.dialect, ctx.client, ctx.op,
                        ctx.ops, list(ctx.paths or ctx.asked), ctx.outcome, ctx.changes[:], ctx.summary, ctx.agent)
        pending = DEFERRED.get()
        if pending is not None:
            pending.append(ended)  # made into its record by the audit writer, after the reply
        else:
            self._append(self._request_record(ended))

    def _request_record(self, ended: Ended) -> dict[str, object]:
        """The audit record of a request as it ended (taken by `_record_request`)."""
        now, seconds, topic, dialect, client, op, ops, paths, outcome, changes, summary, agent = ended
        record: dict[str, object] = {
            "time": round(now, 6), "workspace": self.workspace_id, "topic": topic or "-", "frontend": dialect,
            "client": client, "op": loggable(op or dialect), "ops": ops, "paths": [loggable(path) for path in paths],
            "outcome": outcome or "ok", "ms": round(seconds * 1000, 3),
        }
        if len(changes) == 1:
            record["change"] = changes[0]
        elif changes:
            record["changes"] = changes
        if summary is not None:
            record["command"] = loggable(summary)
        if agent is not None:
            record["agent"] = agent
        return record

    def records_after_reply(self) -> AbstractContextManager[None]:
        """Requests that end inside the block have their audit records written when it ends: a front end sends
        the reply inside it, so a client's round trip does not wait for the log (its append costs more than the
        rest of a small request on an idle machine). Nothing is lost: the block ends right after the send."""
        return _AfterReply(self)

    def _hand_over(self, records: list[Ended]) -> None:
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
                    self._writer = AuditWriter(log, self._request_record)
                writer = self._writer
        writer.put(records)

    def flush_records(self) -> None:
        """Wait until every record handed to the audit writer is in the log."""
        writer = self._writer
        if writer is not None:
            writer.flush()

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
        if not self._local_ready:  # made once (workspace_folder): every request's record comes through here
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


class _Request:
    """`StateRecords.request`'s block."""

    __slots__ = ("agent", "client", "command", "ctx", "dialect", "op", "paths", "records", "token", "topic")

    def __init__(self, records: StateRecords, dialect: str, op: str | None, topic: str, command: str | None,
                 agent: str | None, paths: tuple[str, ...], client: str | None) -> None:
        self.records, self.dialect, self.op, self.topic = records, dialect, op, topic
        self.command, self.agent, self.paths, self.client = command, agent, paths, client
        self.ctx: RequestContext | None = None  # None: inside another request, which this block only adds to

    def __enter__(self) -> RequestContext:
        outer = current()
        if outer is not None:
            outer.command = outer.command if outer.command is not None else self.command
            outer.agent = outer.agent if outer.agent is not None else self.agent
            return outer
        ctx = self.ctx = RequestContext(dialect=self.dialect, op=self.op, topic=self.topic,
                                        client=self.client or self.records.client, command=self.command,
                                        agent=self.agent, asked=self.paths)
        self.token = CURRENT.set(ctx)
        return ctx

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, traceback: object) -> None:
        ctx = self.ctx
        if ctx is None:
            return
        if isinstance(exc, StringError):
            ctx.outcome = exc.code
        elif kind is not None:
            ctx.outcome = f"INTERNAL_ERROR:{kind.__name__}"
        CURRENT.reset(self.token)
        self.records._record_request(ctx)


class _AfterReply:
    """`StateRecords.records_after_reply`'s block."""

    __slots__ = ("pending", "records", "token")

    def __init__(self, records: StateRecords) -> None:
        self.records = records
        self.pending: list[Ended] | None = None  # None: inside another such block, which writes them

    def __enter__(self) -> None:
        if DEFERRED.get() is None:
            self.pending = []
            self.token = DEFERRED.set(self.pending)

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, traceback: object) -> None:
        if self.pending is None:
            return
        DEFERRED.reset(self.token)
        if self.pending:
            self.records._hand_over(self.pending)
