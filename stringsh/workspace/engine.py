"""The Workspace facade: every front end reads, lists, writes, reverts, undoes and runs shells through this one
object. Each method delegates to its operation in `ops/` (one family per module, the permission check inside),
loaded on first use so a read-only command never imports the journal or the shell."""

from __future__ import annotations

import os
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from stringsh.errors import NOT_FOUND_HINT, StringError
from stringsh.userdirs import user_policy_file
from stringsh.workspace.clients import Client
from stringsh.workspace.context import RequestContext, current, on_wait
from stringsh.workspace.guards import NO_GUARD, Guard, WholeFile
from stringsh.workspace.layers import load_policy
from stringsh.workspace.paths import Confiner
from stringsh.workspace.policy import POLICY_FILE, Policy
from stringsh.workspace.state import DEGRADED, AuditNote, EngineState
from stringsh.workspace.trust import trust_file

if TYPE_CHECKING:
    from collections.abc import Callable

    from stringsh.workspace.activity import ClientChanges, Health
    from stringsh.workspace.audit import AuditCheck
    from stringsh.workspace.auditread import Entry as AuditEntry
    from stringsh.workspace.auditread import Spot as AuditSpot
    from stringsh.workspace.git.facade import Git
    from stringsh.workspace.journal import Journal
    from stringsh.workspace.journalrows import ChangeRow
    from stringsh.workspace.keep import Depth
    from stringsh.workspace.models import ChangeSet, ChangeSetId, RevertOutcome, SkippedChange, WriteOutcome
    from stringsh.workspace.ops.actionrun import ActionRequest, ActionRun
    from stringsh.workspace.ops.copy import CopyOutcome, FolderCopyOutcome
    from stringsh.workspace.ops.delete import DeleteOutcome
    from stringsh.workspace.ops.glob import GlobResult
    from stringsh.workspace.ops.grep import GrepResult
    from stringsh.workspace.ops.inplace import Rewritten
    from stringsh.workspace.ops.lines import LineEditOutcome
    from stringsh.workspace.ops.listdir import DirEntry, FolderTree
    from stringsh.workspace.ops.mkdir import MkdirOutcome
    from stringsh.workspace.ops.move import MoveOutcome
    from stringsh.workspace.ops.partedit import PartEditRequest
    from stringsh.workspace.ops.read import TextFile
    from stringsh.workspace.ops.replace import Mode as ReplaceMode
    from stringsh.workspace.ops.replace import ReplaceOutcome
    from stringsh.workspace.ops.searchwalk import SearchWalk
    from stringsh.workspace.ops.shell import ShellRequest, ShellSlot
    from stringsh.workspace.ops.stat import FileInfo
    from stringsh.workspace.ops.streams import StreamsRequest
    from stringsh.workspace.ops.window import TextWindow, WindowRequest
    from stringsh.workspace.redact import Redactor
    from stringsh.workspace.shell.providers import Provider
    from stringsh.workspace.shell.result import ShellResult
    from stringsh.workspace.shell.session import ShellSession
    from stringsh.workspace.shell.settings import ShellSettings
    from stringsh.workspace.shell.streams import StreamsResult

#: The one-shot dialects' topics that `/undo` in main also walks for a lasting client (Workspace.undo_topics).
LASTING_UNDO_TOPICS = ("operator", "tools")
#: What a write is for: `edit` (changing part of an existing file in place) also needs the `edit` permission.
WriteOp = Literal["write", "edit"]


class Workspace:
    """A confined workspace root with its policy, change journal and audit log (kept in the user's state folder by
    `EngineState`; the workspace's `.stringsh/` holds only spool files and the index cache)."""

    def __init__(self, root: str | Path, policy: Policy | None = None, *, state_dir: Path | None = None,
                 frontend: str = "string", client: Client | None = None) -> None:
        """`client`: who this process is in the journal (workspace/clients.py; default: its own, per process)."""
        self.root = Path(root).resolve()
        self.policy = policy or Policy.default(self.root)
        aliases = (Path(root), self.policy.root.path, *([Path(os.environ["PWD"])] if os.environ.get("PWD") else []))
        others = tuple(self.policy.roots[1:])  # (id, folder, mode) each
        self.confiner = Confiner(Path(os.path.abspath(root)), self.policy.matcher(), aliases, self.policy.root.id,
                                 self.policy.root.mode)
        self.confiner.matcher.shown = self.redact  # a name shown masked is never suggested (suggest.py)
        if others:  # only then: `-c /ls` stays light
            from stringsh.workspace.roots import Roots

            Roots.attach(self.confiner, others)
        self.state = EngineState(self.confiner, state_dir, frontend, client)
        # the state folders (this workspace's, and the user's of every workspace) are never changed through the
        # engine, wherever they are: the sandboxed shell hides them, and every operation refuses them
        from stringsh.userdirs import state_dir as user_state_dir

        self.confiner.keep_out(((self.state.path, "state folder"), (user_state_dir(), "state folder")))
        self._redactor: Redactor | None = None
        #: The policy is not changed through the workspace it governs (CVE-2026-25725), even before it exists.
        self.policy_files = {POLICY_FILE}
        # ... nor the user's policy and trust records when the workspace holds them (a root of ~).
        sources = (self.policy.source, *self.policy.files, user_policy_file(), trust_file())
        for source in {path.resolve() for path in sources if path is not None}:
            for ident, folder, _ in self.confiner.root_list():  # in another root: `id:rel`, as resolved
                if source.is_relative_to(folder):
                    rel = source.relative_to(folder).as_posix()
                    self.policy_files.add(rel if folder == self.confiner.real else f"{ident}:{rel}")

    @classmethod
    def load(cls, root: str | Path, policy_file: Path | None = None, *, no_sandbox: bool = False,
             client: Client | None = None) -> Workspace:
        policy = load_policy(root, policy_file, no_sandbox=no_sandbox)
        workspace = cls(policy.root.path, policy, client=client)
        workspace.state.check_identity()  # a folder re-created at this path does not inherit its journal
        if workspace.state.recovery_due():  # a few stats: the journal opens only when a crash may have left work
            try:
                workspace.recover()  # a crash left files mid-change: put them back before anyone reads them
            except StringError as exc:
                if exc.code not in DEGRADED:
                    raise
                # degraded: reads go on, every change is refused (and recovers first) until the condition clears
                workspace.state.read_only = workspace.state.read_only or exc.message.rstrip(".")
        workspace.state.probe()
        return workspace

    def close(self) -> None:
        self.state.flush_records()  # before the lock: the audit writer takes it to open the log
        with self.state.thread_lock:
            self.state.close()
            self.confiner.close()

    # -- state (see state.py) ---------------------------------------------------------------------------------

    @property
    def frontend(self) -> str:
        """The dialect of the request this call belongs to (context.py); the workspace's own for a library call."""
        return self.state.frontend

    def request(self, dialect: str, op: str | None, *, topic: str, command: str | None = None,
                agent: str | None = None, paths: Sequence[str] = (),
                client: str | None = None) -> AbstractContextManager[RequestContext]:
        """Run one request of a front end inside this block: `dialect` (`string`, `operator`, `tools`, `mcp`) and
        `agent` (the client program's own name) attribute its changes in the journal and the audit log; `op` names
        it in its one audit record (`/open`, `tools.edit`); `command` is what `/changes` names its change sets by
        (a command line, a tool and its paths; never a payload); `paths` are the ones it names, recorded when no
        operation got as far as naming its own; `client` is whose undo history its changes join (default: this
        process's, EngineState.client). See context.py."""
        return self.state.request(dialect, op, topic, command, agent, tuple(paths), client)

    def records_after_reply(self) -> AbstractContextManager[None]:
        """Send a reply inside this block: the audit records of the requests that ended in it are written when it
        ends, after the reply (see state.py)."""
        return self.state.records_after_reply()

    def on_wait(self, hook: Callable[[], None]) -> AbstractContextManager[None]:
        """Requests run in this block on this thread call `hook` when about to wait for other writers
        (context.BEFORE_WAIT): a front end reading requests on this thread can let another read on meanwhile."""
        return on_wait(hook)

    @property
    def trusted(self) -> bool:
        """Whether the user trusts this workspace (`stringsh trust`, bound to its stringsh.toml's hash)."""
        return self.policy.trusted

    @property
    def state_dir(self) -> Path:
        return self.state.dir

    @property
    def symbol_index_path(self) -> Path:
        """Where the workspace's symbol index lives (an SQLite file in its state folder, a cache: deleting it is
        safe); the folder is made, private, on first use."""
        self.state.dir  # noqa: B018 (creates the state folder, owner-checked)
        return self.state.symbol_index_path

    @property
    def journal(self) -> Journal:
        return self.state.journal

    def locked(self) -> AbstractContextManager[None]:
        """Exclusive across threads and processes; re-entrant. Recovers change sets a crashed process left."""
        return self.state.locked()

    def recover(self) -> None:
        """Finish any change set a crashed process left pending (also done on every locked operation)."""
        with self.locked():
            pass

    def verify_audit(self) -> AuditCheck:
        """The chain, its head, and the anchor the journal keeps (when it has one); records still on their way to
        the log (records_after_reply) are written first."""
        from stringsh.workspace.auditfolder import verify_audit_folder

        self.state.flush_records()
        return verify_audit_folder(self.state.path, self.state.journal_path)

    def audited(self, op: str, paths: Sequence[str] = (), *, topic: str | None = None,
                command: str | None = None) -> AbstractContextManager[AuditNote]:
        """The audit record of one operation a front end runs outside the engine's own ops (git, an action): wrap
        the run in it. `command` is the command line as typed (only its first line is kept, with secrets masked:
        audit.summarize_command); set the yielded note's `outcome` (e.g. `EXIT_1`) when the run failed without
        raising; a raised StringError is recorded by its code. Never put contents or output in `paths`."""
        summary = None
        if command is not None:
            from stringsh.workspace.audit import summarize_command

            summary = summarize_command(command, self.redactor)
        return self.state.audited(op, list(paths), topic, summary)

    def permit(self, *names: str, mutating: bool = False) -> None:
        """NOT_PERMITTED unless the policy grants every named permission (`read`, `write`, `edit`, `delete`,
        `move`, `patch`, `shell`…); `mutating`: a change, refused too while the engine is read-only."""
        from stringsh.workspace.ops.guard import require

        flags = self.policy.permissions._asdict()
        for name in names:
            require(self.policy, flags[name], name, mutating=mutating)

    def prune(self, keep: int | None = None) -> int:
        """Drop all but the newest `keep` change sets (default: the policy's `[journal]` keep policy, bytes
        included), and undo beyond them; returns how many were dropped. Done after every change anyway."""
        with self.locked():
            if keep is None:
                return self.journal.prune(self.policy.journal.keep_changes, self.policy.journal.keep_bytes)
            return self.journal.prune(keep)

    def journal_depth(self) -> Depth | None:
        """How much the journal holds (change sets, bytes, oldest id); None when there is none yet."""
        with self.state.thread_lock:
            return self.journal.depth() if self.state.has_journal() else None

    def command_line(self) -> str:
        """The request this call belongs to, as `/changes` names its change sets (redacted, one line, cut at 200
        characters); "" for a library call."""
        ctx = current()
        line = ctx.command if ctx is not None else None
        if not line:
            return ""
        line = self.redact(line.replace("\r", " ").replace("\n", " "))
        return line if len(line) <= 200 else line[:199] + "…"

    def undo_depth(self, topic: str) -> int:
        """How many times `/undo` could walk back in this topic (for the REPL toolbar); never creates state."""
        with self.state.thread_lock:
            if not self.state.has_journal():
                return 0
            return sum(self.journal.undo_depth(each) for each in self.undo_topics(topic))

    def undo_topics(self, topic: str) -> tuple[str, ...]:
        """The topics whose changes `/undo` in `topic` walks back, newest first across them: the topic itself; in
        main also `operator` and `tools` for a client that outlives its process (named, or a terminal session's),
        whose one-shot `stringsh operator` and `stringsh tools` runs have no `/undo` of their own."""
        ctx = current()
        own = ctx is None or not ctx.client or ctx.client == self.state.client
        if topic == "main" and own and self.state.client_lasting:
            return (topic, *LASTING_UNDO_TOPICS)
        return (topic,)

    def history(self, limit: int = 50, before: int | None = None) -> list[ChangeRow]:
        """Newest change sets first, below `before` when given (one journal connection is shared, so threads take
        turns); none, and no journal made, where there is none yet."""
        with self.state.thread_lock:
            return self.journal.history(limit, before) if self.state.has_journal() else []

    def change(self, change_id: int) -> ChangeRow | None:
        """One change set's row; None when the journal does not hold it (or there is no journal)."""
        with self.state.thread_lock:
            return self.journal.get(change_id) if self.state.has_journal() else None

    def change_paths(self, change_id: int) -> list[str]:
        """The paths one change set wrote: its files', then its folders' and links'."""
        with self.state.thread_lock:
            if not self.state.has_journal():
                return []
            named = [f.path for f in self.journal.files(change_id)] + [op.path for op in self.journal.tree(change_id)]
        return list(dict.fromkeys(named))

    def path_history(self, path: str, limit: int = 100) -> list[ChangeRow]:
        """The change sets that wrote `path` (root-relative, as the journal names it), newest first."""
        from stringsh.workspace.activity import path_history

        with self.state.thread_lock:
            if not self.state.has_journal():
                return []
            rows = (self.journal.get(change) for change in path_history(self.journal.db, path, limit))
            return [row for row in rows if row is not None]

    def change_clients(self) -> list[ClientChanges]:
        """Each client's change sets per topic: counts, undo depth and the change `/undo` would take next, the most
        recently active first (activity.py)."""
        from stringsh.workspace.activity import client_changes

        with self.state.thread_lock:
            return client_changes(self.journal.db) if self.state.has_journal() else []

    def audit_end(self) -> AuditSpot:
        """Where the audit log ends now: `audit_since` from here returns the records written after this call."""
        from stringsh.workspace.auditread import end
        from stringsh.workspace.statefolder import AUDIT_FILES

        return end(self.state.path, AUDIT_FILES)

    def audit_since(self, spot: AuditSpot) -> tuple[list[AuditEntry], AuditSpot]:
        """The audit records (as stored) written after `spot`, and where the next call goes on (auditread.py)."""
        from stringsh.workspace.auditread import since
        from stringsh.workspace.statefolder import AUDIT_FILES

        return since(self.state.path, AUDIT_FILES, spot)

    def audit_before(self, spot: AuditSpot | None, count: int,
                     keep: Callable[[str], bool] = bool) -> tuple[list[AuditEntry], AuditSpot | None]:
        """A page of older audit records, newest first, those `keep` accepts, and where the next page starts."""
        from stringsh.workspace.auditread import before
        from stringsh.workspace.statefolder import AUDIT_FILES

        self.state.flush_records()
        return before(self.state.path, AUDIT_FILES, spot, count, keep)

    def audit_kept(self, spot: AuditSpot) -> bool:
        """Whether `audit_before` can still page back from `spot`: False once its file was rotated out."""
        from stringsh.workspace.auditread import kept
        from stringsh.workspace.statefolder import AUDIT_FILES

        return kept(self.state.path, AUDIT_FILES, spot)

    def health(self) -> Health:
        """Degraded (read-only) mode and why (this process's, and another's note), the workspace lock's holder, and
        the space left where the state folder lives."""
        from stringsh.workspace.activity import health, newest_change_time

        with self.state.thread_lock:
            newest = newest_change_time(self.journal.db) if self.state.has_journal() else None
        return health(self.state.path, self.state.read_only, newest)

    # -- reads ------------------------------------------------------------------------------------------------

    @property
    def redactor(self) -> Redactor:
        """The policy's patterns plus the built-in set (workspace/redact.py), made and compiled on first use."""
        if self._redactor is None:
            self._redactor = self.policy.redactor()
        return self._redactor

    def redact(self, text: str) -> str:
        """Mask secrets (the policy's patterns and the built-in set) in text about to leave the process: every
        output path that shows file, shell or response text calls this. Reads themselves never mask."""
        return self.redactor(text)

    def redact_lines(self, text: str) -> str:
        """`redact`, keeping line breaks (a secret over N lines becomes N masked lines): for views of a file,
        whose line numbers and `--from N` must stay the file's."""
        return self.redactor(text, keep_lines=True)

    def relative(self, path: str, *, reading: bool = False) -> str:
        """The confined, normalised root-relative POSIX path ("." for the root); does not touch the disk.

        `reading` also accepts a shell spool file, which only `stat`, `read_text` and `read_bytes` can reach."""
        return self.confiner.relative(path, reading=reading)

    def stat(self, path: str, *, follow: bool = True, topic: str | None = None) -> FileInfo | None:
        """Metadata of the resolved path, None when it does not exist; `follow=False` reports a symlink itself.
        Audited when a `topic` asks (`/stat`); the engine's and front ends' own look-ups (no topic) are parts of an
        operation recorded on its own."""
        from stringsh.workspace.ops.stat import StatRequest, stat_path

        return stat_path(self, StatRequest(path, follow, topic))

    def not_found(self, path: str, shown: str) -> StringError:
        """NOT_FOUND for `path` (named `shown` in the reply), with the closest name there is when one is close."""
        try:
            self.confiner.resolve(path, reading=True).close()
        except StringError as exc:
            if exc.code == "NOT_FOUND" and exc.message.startswith("File not found"):
                return StringError("NOT_FOUND", f"File not found: {shown}", exc.advice)
        return StringError("NOT_FOUND", f"File not found: {shown}", NOT_FOUND_HINT)

    def list_dir(self, path: str = ".", *, topic: str | None = None) -> list[DirEntry]:
        """Direct children sorted by name; secrets, engine state and stringsh temp files are left out."""
        from stringsh.workspace.ops.listdir import ListRequest, list_dir

        return list_dir(self, ListRequest(path, topic))

    def list_tree(self, path: str = ".", *, max_depth: int | None = None, skip: Callable[[str], bool] | None = None,
                  limit: int | None = None, topic: str | None = None) -> FolderTree:
        """`list_dir` of the folder and of each folder below it, depth first, never through a link; `skip` leaves
        out entries by their path relative to `path`; past `limit` entries it stops (`over_limit`)."""
        from stringsh.workspace.ops.listdir import TreeRequest, list_tree

        return list_tree(self, TreeRequest(path, max_depth, skip, limit, topic))

    def glob(self, pattern: str, path: str = ".", *, topic: str | None = None,
             max_results: int | None = None, stats: bool = False, engine: str = "auto",
             sort: str = "path") -> GlobResult:
        """Files below `path` whose path matches `pattern` (root-relative, `**`), in path order, or newest first with
        `sort="mtime"`; never secrets, `.stringsh/`, `.git/`, ignored files or anything through a folder symlink
        (ops/glob.py)."""
        from stringsh.workspace.ops.glob import GlobRequest, glob_paths

        return glob_paths(self, GlobRequest(pattern, path, topic, max_results, stats, engine, sort))

    def grep(self, query: str, path: str = ".", *, regex: bool = False, glob: str | None = None,
             ignore_case: bool = False, context: int = 0, max_results: int | None = None,
             topic: str | None = None, engine: str = "auto", stats: bool = False) -> GrepResult:
        """Matching lines (redacted, clipped) in the files of the same confined walk as `glob` (ops/grep.py)."""
        from stringsh.workspace.ops.grep import GrepRequest, grep

        return grep(self, GrepRequest(query, path, regex, glob, ignore_case, context, max_results, topic, engine,
                                      stats))

    def search_walk(self, paths: Sequence[str], *, command: str, topic: str | None = None) -> SearchWalk:
        """The files under `paths` for a search done above the engine (`/symbols`), as a context manager: the grep
        permission checked now, one audit record (op `grep`, the paths, `command`) around the `with`, the confined
        no-follow walk of `glob` and `grep` (`files(path)`), each file read within the read limit, hard links
        refused unless allowed (`SearchFile.read`), and the traversal counts (`traversal()`): ops/searchwalk.py."""
        from stringsh.workspace.ops.searchwalk import SearchWalk

        return SearchWalk(self, paths, command, topic)

    def read_bytes(self, path: str, *, topic: str | None = None) -> bytes:
        from stringsh.workspace.ops.read import ReadRequest, read_bytes

        return read_bytes(self, ReadRequest(path, topic))

    def read_text(self, path: str, *, topic: str | None = None, legacy: bool | str = False,
                  known_utf8: Callable[[str, int], bool] | None = None,
                  known_identity: Callable[[str, tuple[int, ...]], str | None] | None = None,
                  prefix: int = 0) -> TextFile:
        """Strictly decoded text with the file's own line endings; BINARY_FILE / ENCODING / TOO_LARGE. `legacy`: a
        file that is not UTF-8 is read as Latin-1 (or detected cp1252) instead; `legacy="edit"` refuses one whose
        encoding is ambiguous (parts of it UTF-8), as every editor does. `known_utf8`: see `ReadRequest` (bytes a
        signed cache knows are UTF-8 come back undecoded, in `raw`); `known_identity`, `prefix`: the same for a file
        whose identity the cache vouches for (only its first `prefix` bytes are read)."""
        from stringsh.workspace.ops.read import ReadRequest, read_text

        return read_text(self, ReadRequest(path, topic, legacy, known_utf8, known_identity, prefix))

    def read_window(self, request: WindowRequest) -> TextWindow:
        """Lines [start, stop) of a file of any size within a character budget, in one bounded pass (ops/window.py):
        how a file past the read limit is shown."""
        from stringsh.workspace.ops.window import read_window

        return read_window(self, request)

    def current_bytes(self, path: str) -> bytes | None:
        """The bytes `path` holds now, read as revert reads them (no read record: /changes shows many files); None
        when there is no such file or `path` does not name itself (a link). StringError or OSError when it cannot
        be read."""
        from stringsh.workspace.changes import current_bytes

        with self.confiner.resolve(path, create=True) as res:
            return current_bytes(res, self.policy.limits.max_read_bytes)[0] if res.rel == path else None

    def fingerprint(self, path: str) -> str | None:
        """sha256 of the file's current bytes, None when it does not exist (no audit record: a helper)."""
        from stringsh.workspace.ops.read import ReadRequest, fingerprint

        return fingerprint(self, ReadRequest(path))

    # -- writes -----------------------------------------------------------------------------------------------

    def encode_for(self, path: str, text: str) -> tuple[bytes, bool]:
        """Bytes for `text` written to `path`, in the existing file's encoding, BOM and dominant line ending
        (text given with `\\n` endings). Returns (bytes, created)."""
        from stringsh.workspace.ops.write import encode_for

        encoded = encode_for(self, path, text)
        return encoded.data, encoded.created

    def write_text(self, path: str, text: str, *, topic: str = "main", guard: Guard = NO_GUARD,
                   create_parents: bool = True, op: WriteOp = "write", empty_ok: bool = True) -> WriteOutcome:
        """Replace the whole file, keeping encoding, BOM, line endings and mode of an existing file.

        `guard`: `WholeFile(sha256)` (the file as read; `""`: it did not exist) or NO_GUARD. A text with more
        masks than the file where the file holds a secret is refused (guards.py). `op="edit"` (a whole-file
        `/edit`) also needs the policy's `edit` permission; `empty_ok=False` refuses an empty text."""
        from stringsh.workspace.ops.write import WriteRequest, write_text

        expected = guard.sha256 if isinstance(guard, WholeFile) else None
        return write_text(self, WriteRequest(path, text, topic, expected, create_parents, op, empty_ok))

    def append_text(self, path: str, text: str, *, topic: str = "main") -> WriteOutcome:
        """Add `text` (with `\\n` endings) at the end of an existing text file, in its encoding and dominant line
        ending; a line ending is added first when the file does not end with one. Changing an existing file in
        place: needs the `edit` permission as well as `write`."""
        from stringsh.workspace.ops.write import AppendRequest, append_text

        return append_text(self, AppendRequest(path, text, topic))

    def edit(self, path: str, start_line: int, end_line: int, replacement: str, *, topic: str = "main",
             guard: Guard = NO_GUARD) -> LineEditOutcome:
        """Replace lines start..end (1-based, inclusive) with `replacement` (`\\n` endings), keeping the file's line
        endings, encoding and every other byte; INVALID_TARGET for a range outside the file (ops/lines.py)."""
        from stringsh.workspace.ops.lines import LineEditRequest, edit_lines

        return edit_lines(self, LineEditRequest(path, start_line, end_line, replacement, topic, guard))

    def edit_part(self, request: PartEditRequest) -> Rewritten:
        """Replace one part of a file (a block, a symbol, a line range) by a body, as one journalled change: the
        part found again under the lock by the caller's `locate`, held against the request's guard (normally
        `PartText`, the part as read), the body checked, spliced, encoded and applied (ops/partedit.py)."""
        from stringsh.workspace.ops.partedit import edit_part

        return edit_part(self, request)

    def edit_text(self, path: str, change: Callable[[TextFile], str], *, topic: str = "main",
                  guard: Guard = NO_GUARD, stale: Callable[[str], StringError] | None = None) -> Rewritten:
        """Change a text file in place by `change` (called under the lock on the file as it is), as one
        journalled change in the file's encoding; the new text is checked against the whole file's (no mask
        written over a secret). A `WholeFile` guard the file no longer matches is `stale(rel)` (ops/inplace.py)."""
        from stringsh.workspace.ops.inplace import rewrite

        return rewrite(self, path, topic, "write", guard, change, stale)

    def replace(self, path: str, pairs: tuple[tuple[str, str], ...], *, mode: ReplaceMode = "one",
                topic: str = "main", guard: Guard = NO_GUARD) -> ReplaceOutcome:
        """Exact old -> new text, each pair in order, as one journalled change keeping encoding, BOM and line
        endings (ops/replace.py); a refusal is ops.replace.Refused, which each dialect words itself. A new text
        with more masks than the text it replaces, where that holds a secret, is refused (guards.py)."""
        from stringsh.workspace.ops.replace import ReplaceRequest, replace_in_file

        expected = guard.sha256 if isinstance(guard, WholeFile) else None
        return replace_in_file(self, ReplaceRequest(path, pairs, mode, topic, expected))

    def apply(self, changeset: ChangeSet, *, topic: str = "main", op: WriteOp = "write") -> ChangeSetId:
        """Apply every file and patch of the change set or none; returns the id `revert` takes (docs/change-sets.md).

        Patches apply with exact context (hunks.py); the policy's change allow- and deny lists and budgets are
        checked before anything is written, a refusal saying what was asked against what is allowed.
        `op="edit"` (a block `/edit`, which rewrites part of an existing file) also needs the `edit` permission."""
        from stringsh.workspace.ops.apply import ApplyRequest, apply

        return apply(self, ApplyRequest(tuple(changeset.files), topic, tuple(changeset.patches), op))

    def apply_codex(self, text: str, *, topic: str = "main",
                    seen: Callable[[str], str | None] = lambda _path: None) -> tuple[int, list[str]]:
        """Apply a patch in Codex's apply_patch format as one change set (codexpatch.py): (change id, one summary
        per file). `seen` gives the hash a topic last read of a path, which the file must still have."""
        from stringsh.workspace.codexpatch import apply_codex

        return apply_codex(self, text, topic, seen)

    def revert(self, change_id: int, *, topic: str | None = None, undoable: bool = False) -> RevertOutcome:
        """Put back the bytes a change set replaced, as a new change set; CONFLICT if a file changed since.
        `undoable` (`/revert`): the revert is itself a change `/undo` (or a revert of it) takes back."""
        from stringsh.workspace.ops.revert import RevertRequest, revert

        return revert(self, RevertRequest(change_id, topic, undoable))

    def undo(self, topic: str) -> RevertOutcome:
        """Revert this client's newest change in the topic not undone yet; each call walks one change further back."""
        from stringsh.workspace.ops.revert import UndoRequest, undo

        return undo(self, UndoRequest(topic))

    def undo_skip(self, topic: str) -> SkippedChange:
        """Pass over the change `undo` would take back next, leaving its files as they are."""
        from stringsh.workspace.ops.revert import UndoRequest, skip

        return skip(self, UndoRequest(topic))

    # -- file operations (docs/file-operations.md): each one change set, so /undo puts it back ----------------

    def mkdir(self, path: str, *, create_parents: bool = False, ignore_existing: bool = False,
              topic: str = "main") -> MkdirOutcome:
        """Make a folder (and its missing parents with `create_parents`); needs the `mkdir` permission."""
        from stringsh.workspace.ops.mkdir import MkdirRequest, mkdir

        return mkdir(self, MkdirRequest(path, create_parents, ignore_existing, topic))

    def move(self, source: str, dest: str, *, overwrite: bool = False, create_parents: bool = False,
             topic: str = "main") -> MoveOutcome:
        """Move a file, a symlink (the link itself) or a folder; into `dest` when that is a folder."""
        from stringsh.workspace.ops.move import MoveRequest, move

        return move(self, MoveRequest(source, dest, overwrite, create_parents, topic))

    def copy_file(self, source: str, dest: str, *, overwrite: bool = False, create_parents: bool = False,
                  topic: str = "main") -> CopyOutcome:
        """Copy one regular file's bytes and mode; needs the `write` permission."""
        from stringsh.workspace.ops.copy import CopyRequest, copy_file

        return copy_file(self, CopyRequest(source, dest, overwrite, create_parents, topic))

    def copy_folder(self, source: str, dest: str, *, create_parents: bool = False, topic: str = "main",
                    plan: bool = False) -> FolderCopyOutcome:
        """Copy a folder (its files with their modes and times, its folders, empty ones too) to a path that does
        not exist yet, as one change set /undo removes whole; needs the `write` permission. A secret, a protected
        path or a link inside refuses the whole copy (ops/copy.py). `plan`: check and list, write nothing."""
        from stringsh.workspace.ops.copy import FolderCopyRequest, copy_folder

        return copy_folder(self, FolderCopyRequest(source, dest, create_parents, topic, plan))

    def delete(self, path: str, *, recursive: bool = False, ignore_missing: bool = False, force: bool = False,
               topic: str = "main") -> DeleteOutcome:
        """Delete a file, a symlink (never what it points at) or, `recursive`, a folder; `force` goes beyond the
        journal's keep limit (no undo)."""
        from stringsh.workspace.ops.delete import DeleteRequest, delete

        return delete(self, DeleteRequest(path, recursive, ignore_missing, force, topic))

    # -- git ------------------------------------------------------------------------------------------------

    @property
    def git(self) -> Git:
        """`/git`'s operations on this workspace (git/facade.py): status, diff, log, branches, commit, checkout,
        push, each audited, with secrets kept out."""
        from stringsh.workspace.git.facade import Git

        return Git(self)

    # -- shell ------------------------------------------------------------------------------------------------

    def shell_settings(self) -> ShellSettings:
        """The policy's shell settings; NOT_PERMITTED when the policy turns the shell off."""
        from stringsh.workspace.ops.shell import shell_settings

        return shell_settings(self)

    def sandbox_settings(self) -> ShellSettings:
        """The policy's shell settings with the sandbox chosen, whether or not the shell is permitted (git and
        actions run sandboxed too; the start-up line says why a shell is not)."""
        from stringsh.workspace.ops.shell import sandbox_settings

        return sandbox_settings(self)

    def shell_provider(self) -> Provider:
        """The policy's shell provider (bubblewrap probed once per workspace), for other sandboxed commands."""
        from stringsh.workspace.ops.shell import provider

        return provider(self, self.sandbox_settings())

    def shell_sandboxed(self) -> bool:
        """Whether shell commands run in bubblewrap: by default where it runs, unless the user turned it off."""
        return self.sandbox_settings().sandbox != "none"

    def shell_environment(self) -> str:
        """The shell's environment rule in a few words (`core; withheld unless named: *KEY*, …`), for `/info`."""
        from stringsh.workspace.shell.environment import summary

        return summary(self.policy.environment)

    def page_environment(self) -> dict[str, str]:
        """The process variables a page of this workspace may name as `$VAR` in its actions: what the shell's
        environment rule passes (never a secret-looking name the user's policy did not write out) when the user
        trusted the workspace; none when not, so only `/set` values are used."""
        from stringsh.workspace.shell.environment import passed

        return passed(self.policy.environment) if self.policy.trusted else {}

    def run_action(self, request: ActionRequest) -> ActionRun:
        """A page action's command line, run under the policy (permission, sandbox or admission, the watch for
        protected paths, the audit record, the one process runner): ops/actionrun.py."""
        from stringsh.workspace.ops.actionrun import run_action

        return run_action(self, request)

    def admit_shell(self, command: str) -> None:
        """SECRET_DENIED when the shell is not sandboxed and `command` names a secret path (best effort); the
        check every shell entry makes (ops/shell.admit), here for CLI actions."""
        from stringsh.workspace.ops.shell import admit, sandbox_settings

        admit(self, sandbox_settings(self), command)

    def topic_shell(self, slot: ShellSlot) -> ShellSession:
        """The topic's persistent shell kept in `slot` (a Session), started or re-configured from the policy."""
        from stringsh.workspace.ops.shell import topic_shell

        return topic_shell(self, slot)

    def warm_shell(self, slot: ShellSlot) -> None:
        """Start the topic's shell ahead of its first command (ops/shell.py warm_topic_shell)."""
        from stringsh.workspace.ops.shell import warm_topic_shell

        warm_topic_shell(self, slot)

    def shell(self, request: ShellRequest, slot: ShellSlot) -> ShellResult:
        """Run `request.command` in the topic's persistent shell (kept in `slot`); permission-checked, audited."""
        from stringsh.workspace.ops.shell import run_in_topic_shell

        return run_in_topic_shell(self, request, slot)

    def exec_once(self, request: ShellRequest) -> ShellResult:
        """One stateless `bash -c` in the workspace root (/exec); permission-checked, audited."""
        from stringsh.workspace.ops.shell import run_once

        return run_once(self, request)

    def exec_streams(self, request: StreamsRequest) -> StreamsResult:
        """One `bash -c` in a workspace folder with stdout and stderr apart and byte-exact (JSON tools' `bash`);
        permission-checked, sandboxed per policy, audited as `exec` (ops/streams.py)."""
        from stringsh.workspace.ops.streams import exec_streams

        return exec_streams(self, request)
