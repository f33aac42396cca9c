"""The Workspace facade: every front end reads, lists, writes, reverts and undoes through this one object."""

from __future__ import annotations

import os
import stat
from contextlib import AbstractContextManager
from fnmatch import fnmatchcase
from pathlib import Path

from stringsh.errors import StringError
from stringsh.workspace import atomic, changes
from stringsh.workspace.audit import AuditCheck, verify_audit
from stringsh.workspace.journal import ChangeRow, Journal
from stringsh.workspace.models import (
    ChangeSet,
    DirEntry,
    FileChange,
    FileInfo,
    RevertedFile,
    RevertOutcome,
    TextFile,
    WriteOutcome,
)
from stringsh.workspace.paths import DIR_FLAGS, STATE_DIR, Confiner, Resolved
from stringsh.workspace.policy import POLICY_FILE, Policy, load_policy
from stringsh.workspace.secrets import Redactor
from stringsh.workspace.state import EngineState
from stringsh.workspace.textio import adapt_newlines, count_lines, decode, dominant_newline, encode, newline_style


class Workspace:
    """A confined workspace root with its policy, change journal and audit log (state under `.stringsh/`)."""

    def __init__(self, root: str | Path, policy: Policy | None = None, *, state_dir: Path | None = None,
                 frontend: str = "string") -> None:
        self.root = Path(root).resolve()
        self.policy = policy or Policy.default(self.root)
        aliases = (Path(root), self.policy.root.path, *([Path(os.environ["PWD"])] if os.environ.get("PWD") else []))
        self.confiner = Confiner(Path(os.path.abspath(root)), self.policy.matcher(), aliases)
        self.state = EngineState(self.confiner, state_dir, frontend)
        self._redactor: Redactor | None = None
        #: The policy is not changed through the workspace it governs (CVE-2026-25725), even before it exists.
        self.policy_files = {POLICY_FILE}
        source = self.policy.source.resolve() if self.policy.source is not None else None
        if source is not None and source.is_relative_to(self.confiner.real):
            self.policy_files.add(source.relative_to(self.confiner.real).as_posix())

    @classmethod
    def load(cls, root: str | Path, policy_file: Path | None = None) -> Workspace:
        policy = load_policy(root, policy_file)
        workspace = cls(policy.root.path, policy)
        if workspace.state.has_journal():
            workspace.recover()  # a crash left files mid-change: put them back before anyone reads them
        return workspace

    def close(self) -> None:
        with self.state.thread_lock:
            self.state.close()
            self.confiner.close()

    # -- state (see state.py) ---------------------------------------------------------------------------------

    @property
    def frontend(self) -> str:
        return self.state.frontend

    @frontend.setter
    def frontend(self, value: str) -> None:
        self.state.frontend = value

    @property
    def state_dir(self) -> Path:
        return self.state.dir

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

    def _audited(self, op: str, paths: list[str], topic: str | None) -> AbstractContextManager[dict[str, int]]:
        return self.state.audited(op, paths, topic)

    def verify_audit(self) -> AuditCheck:
        return verify_audit(self.state_dir / "audit.log")

    def prune(self, keep: int = 1000) -> int:
        """Drop all but the newest `keep` change sets (and undo beyond them); returns how many were dropped."""
        with self.locked():
            return self.journal.prune(keep)

    def undo_depth(self, topic: str) -> int:
        """How many times `/undo` could walk back in this topic (for the REPL toolbar); never creates state."""
        with self.state.thread_lock:
            return self.journal.undo_depth(topic) if self.state.has_journal() else 0

    def history(self, limit: int = 50) -> list[ChangeRow]:
        """Newest change sets first (one journal connection is shared, so threads take turns)."""
        with self.state.thread_lock:
            return self.journal.history(limit)

    # -- policy checks ----------------------------------------------------------------------------------------

    def _allow(self, op: str, *, mutating: bool = False) -> None:
        if not getattr(self.policy.permissions, op, False):
            raise StringError("NOT_PERMITTED", f"{op} is disabled by policy")
        if mutating and self.policy.root.mode != "read_write":
            raise StringError("NOT_PERMITTED", f"{op} is not allowed: root {self.policy.root.id} is read_only")

    def _check_hardlink(self, res: Resolved, st: os.stat_result) -> None:
        if st.st_nlink > 1 and stat.S_ISREG(st.st_mode) and not self.policy.secrets.allow_hardlinks:
            raise StringError(
                "SECRET_DENIED",
                f"Refusing a hard-linked file (it may alias a file outside the workspace): {res.rel}",
                "Set secrets.allow_hardlinks = true in stringsh.toml to allow hard links.",
            )

    # -- reads ------------------------------------------------------------------------------------------------

    def redact(self, text: str) -> str:
        """Mask what the policy's redaction regexes match (keys, tokens) before text is shown; reads do not."""
        if self._redactor is None:
            self._redactor = self.policy.redactor()
        return self._redactor(text)

    def relative(self, path: str, *, reading: bool = False) -> str:
        """The confined, normalised root-relative POSIX path ("." for the root); does not touch the disk.

        `reading` also accepts a shell spool file, which only `stat`, `read_text` and `read_bytes` can reach."""
        return self.confiner.relative(path, reading=reading)

    def stat(self, path: str) -> FileInfo | None:
        """Metadata of the resolved path, None when it does not exist."""
        self._allow("stat")
        try:
            res = self.confiner.resolve(path, reading=True)
        except StringError as exc:
            if exc.code == "NOT_FOUND":
                return None
            raise
        with res:
            st = res.st if res.st is not None else os.fstat(res.parent_fd)
            return FileInfo(res.rel, st.st_size, st.st_mtime_ns, stat.S_IMODE(st.st_mode), stat.S_ISDIR(st.st_mode))

    def list_dir(self, path: str = ".", *, topic: str | None = None) -> list[DirEntry]:
        """Direct children sorted by name; secrets, engine state and stringsh temp files are left out."""
        self._allow("list_dir")
        with self._audited("list_dir", [path], topic):
            with self.confiner.resolve(path) as res:
                if res.st is not None and not stat.S_ISDIR(res.st.st_mode):
                    raise StringError("INVALID_TARGET", "Not a directory", f"{res.rel} is a file; use /open {res.rel}")
                fd = os.dup(res.parent_fd) if res.name == "" else os.open(res.name, DIR_FLAGS, dir_fd=res.parent_fd)
                base = "" if res.rel == "." else res.rel + "/"
            try:
                entries = []
                for name in sorted(os.listdir(fd)):
                    rel = base + name
                    if (not base and name == STATE_DIR) or name.startswith(atomic.TEMP_PREFIX):
                        continue
                    if self.confiner.matcher.denied(rel):
                        continue
                    entries.append(DirEntry(name, self._entry_is_dir(fd, name, rel)))
                    if len(entries) >= self.policy.limits.max_walk_entries:
                        break
                return entries
            finally:
                os.close(fd)

    def _entry_is_dir(self, fd: int, name: str, rel: str) -> bool:
        try:
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except OSError:
            return False
        if not stat.S_ISLNK(st.st_mode):
            return stat.S_ISDIR(st.st_mode)
        try:  # a symlink counts as a folder only when it resolves inside the root to one
            with self.confiner.resolve(rel) as target:
                return target.st is not None and stat.S_ISDIR(target.st.st_mode)
        except (StringError, OSError):
            return False

    def _read(self, path: str) -> tuple[Resolved, bytes, os.stat_result]:
        """Resolve and read a regular file within the read limit; the caller closes the returned location."""
        self._allow("read")
        res = self.confiner.resolve(path, reading=True)
        try:
            if res.st is not None and stat.S_ISDIR(res.st.st_mode):
                raise StringError("INVALID_TARGET", f"Is a directory: {res.rel}", f"Use /ls {res.rel}")
            data, st = atomic.read_at(res.parent_fd, res.name, res.rel, self.policy.limits.max_read_bytes)
            self._check_hardlink(res, st)
            return res, data, st
        except BaseException:
            res.close()
            raise

    def read_bytes(self, path: str, *, topic: str | None = None) -> bytes:
        with self._audited("read", [path], topic):
            res, data, _ = self._read(path)
            res.close()
            return data

    def read_text(self, path: str, *, topic: str | None = None) -> TextFile:
        """Strictly decoded text with the file's own line endings; BINARY_FILE / ENCODING / TOO_LARGE."""
        with self._audited("read", [path], topic):
            res, data, st = self._read(path)
            res.close()
            text, encoding, bom = decode(data, res.rel)
            style, final = newline_style(text)
            return TextFile(res.rel, text, encoding, bom, style, final, changes.sha256(data), len(data), st.st_mtime_ns)

    def fingerprint(self, path: str) -> str | None:
        """sha256 of the file's current bytes, None when it does not exist (no audit record: a helper)."""
        self._allow("read")
        try:
            res, data, _ = self._read(path)
        except StringError as exc:
            if exc.code == "NOT_FOUND":
                return None
            raise
        res.close()
        return changes.sha256(data)

    # -- writes -----------------------------------------------------------------------------------------------

    def encode_for(self, path: str, text: str) -> tuple[bytes, bool]:
        """Bytes for `text` written to `path`, in the existing file's encoding, BOM and dominant line ending
        (text given with `\\n` endings). Returns (bytes, created)."""
        with self.confiner.resolve(path, create=True) as res:
            prev, _ = changes.current_bytes(res, self._keep_limit())
            rel = res.rel
        if prev is None:
            return encode(text, "utf-8", False, rel), True
        try:
            old, encoding, bom = decode(prev, rel)
        except StringError:
            return encode(text, "utf-8", False, rel), False  # a whole replacement of an undecodable file
        return encode(adapt_newlines(text, dominant_newline(old)), encoding, bom, rel), False

    def write_text(self, path: str, text: str, *, topic: str = "main", expected_sha256: str | None = None,
                   create_parents: bool = True) -> WriteOutcome:
        """Replace the whole file, keeping encoding, BOM, line endings and mode of an existing file."""
        self._allow("write", mutating=True)
        with self._audited("write", [path], topic) as info, self.locked():
            if not create_parents:
                parts = self.confiner.requested_parts(path)
                if len(parts) > 1 and self.stat("/".join(parts[:-1])) is None:
                    raise StringError("NOT_FOUND", f"Folder not found: {'/'.join(parts[:-1])}")
            data, created = self.encode_for(path, text)
            self._check_size(path, data)
            cs = self._apply_locked([FileChange(path, data, expected_sha256)], topic, "apply", None)
            info["change"] = cs
            rel = self.journal.files(cs)[0].path
            return WriteOutcome(rel, created, len(data), count_lines(text), cs, changes.sha256(data))

    def append_text(self, path: str, text: str, *, topic: str = "main") -> WriteOutcome:
        """Add `text` (with `\\n` endings) at the end of an existing text file, in its encoding and dominant line
        ending; a line ending is added first when the file does not end with one."""
        self._allow("write", mutating=True)
        with self._audited("append", [path], topic) as info, self.locked():
            current = self.read_text(path, topic=topic)
            ending = dominant_newline(current.text)
            addition = adapt_newlines(text, ending)
            if current.text and not current.final_newline:
                addition = ending + addition
            data = encode(current.text + addition, current.encoding, current.bom, current.rel)
            self._check_size(path, data)
            cs = self._apply_locked([FileChange(path, data, current.sha256)], topic, "apply", None)
            info["change"] = cs
            return WriteOutcome(current.rel, False, len(data), count_lines(current.text + addition), cs,
                                changes.sha256(data))

    def _keep_limit(self) -> int:
        """The most previous bytes a change may keep in the journal for undo."""
        return max(self.policy.limits.max_read_bytes, self.policy.limits.max_write_bytes)

    def _check_size(self, path: str, data: bytes) -> None:
        limit = self.policy.limits.max_write_bytes
        if len(data) > limit:
            raise StringError("TOO_LARGE", f"Write of {len(data)} bytes exceeds the policy's limit of {limit}: {path}")

    def apply(self, changeset: ChangeSet, *, topic: str = "main") -> int:
        """Apply every file of the change set or none; returns the change id for `revert`."""
        files = list(changeset.files)
        if not files:
            raise StringError("INVALID_PAYLOAD", "Empty change set.")
        self._allow("write", mutating=True)
        if any(f.data is None for f in files):
            self._allow("delete", mutating=True)
        budget = self.policy.changes
        if len(files) > budget.max_files:
            raise StringError("BUDGET_EXCEEDED", f"Too many files: {len(files)} > {budget.max_files}")
        for f in files:
            if f.data is not None:
                self._check_size(f.path, f.data)
        with self._audited("apply", [f.path for f in files], topic) as info, self.locked():
            info["change"] = self._apply_locked(files, topic, "apply", None)
            return info["change"]

    def _apply_locked(self, files: list[FileChange], topic: str, kind: str, reverts: int | None) -> int:
        plans: list[changes.Plan] = []
        keep_limit = self._keep_limit()
        try:
            seen: set[str] = set()
            for idx, f in enumerate(files):
                p = changes.plan(self.confiner, idx, f.path, f.data, f.expected_prev_sha256, f.mode, keep_limit)
                plans.append(p)
                if p.res.st is not None:  # its previous bytes would be journalled, and /undo would restore them
                    self._check_hardlink(p.res, p.res.st)
                if p.res.rel in self.policy_files:
                    raise StringError(
                        "NOT_PERMITTED", f"{p.res.rel} is the workspace's policy and cannot be changed through stringsh"
                    )
                if p.res.rel in seen:
                    raise StringError("INVALID_PAYLOAD", f"The change set names {p.res.rel} twice.")
                seen.add(p.res.rel)
            if kind == "apply":
                self._check_budget(plans)
            blobs = {p.prev_sha: p.prev for p in plans if p.prev is not None and p.prev_sha}
            cs = self.journal.begin(topic, self.frontend, kind, reverts, [p.row() for p in plans], blobs)
            try:
                changes.execute(cs, plans, lambda: self.journal.seal(cs))
            except BaseException:
                self.journal.finish(cs, "rolled_back")
                raise
            self.journal.finish(cs, "done", reverts)
            return cs
        finally:
            changes.close_plans(plans)

    def _check_budget(self, plans: list[changes.Plan]) -> None:
        """The policy's change allow-list and line budget, checked before anything is recorded or written."""
        budget = self.policy.changes
        for p in plans:
            if not any(fnmatchcase(p.res.rel, glob) for glob in budget.allow_globs):
                raise StringError("NOT_PERMITTED", f"Path is not on the policy's change allow-list: {p.res.rel}")
        lines = sum(p.data.count(b"\n") + 1 for p in plans if p.data)
        if lines > budget.max_loc:
            raise StringError("BUDGET_EXCEEDED", f"Too many lines changed: {lines} > {budget.max_loc}")

    def revert(self, change_id: int, *, topic: str | None = None) -> RevertOutcome:
        """Put back the bytes a change set replaced, as a new change set; CONFLICT if a file changed since."""
        self._allow("revert", mutating=True)
        with self._audited("revert", [str(change_id)], topic) as info, self.locked():
            outcome = self._revert_locked(change_id, topic)
            info["change"] = outcome.change_id
            return outcome

    def _revert_locked(self, change_id: int, topic: str | None) -> RevertOutcome:
        row = self.journal.get(change_id)
        if row is None:
            raise StringError("NOT_FOUND", f"No change {change_id} in the journal.")
        if row.kind != "apply" or row.state != "done":
            raise StringError("INVALID_TARGET", f"Change {change_id} cannot be reverted ({row.kind}, {row.state}).")
        if row.reverted_by is not None:
            raise StringError("INVALID_TARGET", f"Change {change_id} was already reverted by change {row.reverted_by}.")
        rows = self.journal.files(change_id)
        files = []
        for f in rows:
            prev = None if f.prev_sha is None else self.journal.blob(f.prev_sha)
            files.append(FileChange(f.path, prev, f.new_sha or "", f.prev_mode))
        try:
            cs = self._apply_locked(files, topic or row.topic, "revert", change_id)
        except StringError as exc:
            if exc.code != "CONFLICT":
                raise
            changed = next((f.path for f in rows if self._sha_of(f.path) != (f.new_sha or "")), rows[0].path)
            raise StringError(
                "CONFLICT",
                f"Refusing to undo: {changed} changed since change {change_id} wrote it.",
                f"Open {changed} to see its current content; nothing was changed.",
            ) from None
        done = []
        for f, change in zip(rows, files, strict=True):
            action = "deleted" if f.prev_sha is None else ("restored" if f.new_sha is None else "reverted")
            lines = 0 if change.data is None else _lines(change.data)
            done.append(RevertedFile(f.path, action, lines))
        return RevertOutcome(cs, change_id, tuple(done))

    def _sha_of(self, path: str) -> str:
        try:
            with self.confiner.resolve(path, create=True) as res:
                data, _ = changes.current_bytes(res)
        except (StringError, OSError):
            return "?"
        return "" if data is None else changes.sha256(data)

    def undo(self, topic: str) -> RevertOutcome:
        """Revert the topic's newest change that is not undone yet; each call walks one change further back."""
        self._allow("revert", mutating=True)
        with self._audited("undo", [], topic) as info, self.locked():
            change_id = self.journal.last_undoable(topic)
            if change_id is None:
                raise StringError("NOT_FOUND", "Nothing to undo.")
            outcome = self._revert_locked(change_id, topic)
            info["change"] = outcome.change_id
            return outcome


def _lines(data: bytes) -> int:
    try:
        text, _, _ = decode(data, "")
    except StringError:
        return data.count(b"\n")
    return count_lines(text)
