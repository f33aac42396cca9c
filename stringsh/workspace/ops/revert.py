"""revert and undo: put back the bytes a change set replaced, as a new change set; CONFLICT when a file
changed since, or when a symlink now stands where the change wrote a file (undo never deletes or rewrites
through a swapped link). Undo walks one client's changes of a topic back one at a time; a file already back
in its previous state is a step done, and `/undo --skip` passes over a change that cannot be undone. An undo
of a change to part of a file that later changes edited elsewhere takes back just its own lines (undopart.py),
a CONFLICT only when those lines were changed again."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import Hint, Step, StringError, hint
from stringsh.escapes import shown_name
from stringsh.hints import widening_policy
from stringsh.workspace import changes
from stringsh.workspace.atomic import sha256
from stringsh.workspace.blobfiles import FILE_BLOB
from stringsh.workspace.journalrows import ChangeRow, FileRow, MissingBlob, TreeOp, inverse_tree
from stringsh.workspace.models import FileChange, RevertedFile, RevertOutcome, SkippedChange
from stringsh.workspace.ops.appending import revert_append
from stringsh.workspace.ops.apply import apply_locked
from stringsh.workspace.ops.guard import require
from stringsh.workspace.ops.undopart import take_back
from stringsh.workspace.paths import DIR_FLAGS, found_names
from stringsh.workspace.textio import BINARY_SNIFF, count_lines, decode

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace


#: How `/undo` gets past a change it cannot take back (appended to the hints of undo's refusals).
SKIP_HINT = hint(", or ", Step("undo", skip=True), " to go on to older changes")


class RevertRequest(NamedTuple):
    change_id: int
    topic: str | None = None
    #: `/revert`: recorded as a change of its own that `/undo` (or a revert of it) takes back.
    undoable: bool = False


class UndoRequest(NamedTuple):
    topic: str


def require_revert(ws: Workspace) -> None:
    """An undo or revert changes files: besides its own `revert` permission it needs `write` (asked only when
    `revert` is on, so a policy without revert keeps its own refusal; a read-only root gets revert's)."""
    permissions = ws.policy.permissions
    if permissions.revert:
        require(ws.policy, permissions.write, "write")
    require(ws.policy, permissions.revert, "revert", mutating=True)


def revert(ws: Workspace, request: RevertRequest) -> RevertOutcome:
    require_revert(ws)
    with ws.state.audited("revert", [str(request.change_id)], request.topic) as note, ws.locked():
        outcome = revert_locked(ws, request.change_id, request.topic, kind="apply" if request.undoable else "revert")
        note.change = outcome.change_id
        return outcome


def undo(ws: Workspace, request: UndoRequest) -> RevertOutcome:
    """Revert this client's newest change in the topic that is not undone or skipped yet; each call walks one
    change further back. Changes of other clients (another name, terminal session, daemon) are never taken back here."""
    require_revert(ws)
    with ws.state.audited("undo", [], request.topic) as note, ws.locked():
        topics = ws.undo_topics(request.topic)
        change_id = last_undoable(ws, topics)
        if change_id is None:
            if any(ws.journal.pruned_undo(topic) is not None for topic in topics):
                raise pruned_error(ws, "Nothing left to undo: older changes of this topic were pruned from the journal")
            raise StringError("NOT_FOUND", "Nothing to undo.", hint(Step("changes"), " lists the changes there are."))
        outcome = revert_locked(ws, change_id, request.topic, undo=True)
        note.change = outcome.change_id
        return outcome


def skip(ws: Workspace, request: UndoRequest) -> SkippedChange:
    """`/undo --skip`: pass over the change `/undo` would take back next, leaving its files as they are (it stays
    in the journal, revertable by id), so the older changes behind it stay reachable."""
    require_revert(ws)
    with ws.state.audited("undo-skip", [], request.topic) as note, ws.locked():
        journal = ws.journal
        topics = ws.undo_topics(request.topic)
        change_id = last_undoable(ws, topics)
        if change_id is None:
            raise StringError(
                "NOT_FOUND",
                "Nothing to skip: this topic has no change left to undo.",
                "Changes of other topics and other clients are not undone here; see /help undo.",
            )
        journal.skip(change_id)
        note.change = change_id
        named = [f.path for f in journal.files(change_id)] + [op.path for op in journal.tree(change_id)]
        paths = tuple(dict.fromkeys(named))  # a /mkdir or a moved link has folders and links, not files
        return SkippedChange(change_id, paths, last_undoable(ws, topics))


def last_undoable(ws: Workspace, topics: tuple[str, ...]) -> int | None:
    """This client's newest change that `/undo` can still take back in any of `topics` (Workspace.undo_topics)."""
    found = [cs for cs in (ws.journal.last_undoable(topic) for topic in topics) if cs is not None]
    return max(found) if found else None


def pruned_error(ws: Workspace, what: str) -> StringError:
    """NOT_FOUND for what a prune forgot; the hint names the keep policy and how to keep more."""
    from stringsh.workspace.keep import human_size

    keep = ws.policy.journal
    return StringError(
        "NOT_FOUND", f"{what}.",
        hint(f"The journal keeps the newest {keep.keep_changes} changes and {human_size(keep.keep_bytes)} of previous "
             f"content ([journal] keep_changes, keep_bytes in {widening_policy(ws.trusted)}); ", Step("changes"),
             " lists the changes kept."),
    )


def revert_locked(ws: Workspace, change_id: int, topic: str | None, *, undo: bool = False,
                  kind: str = "revert") -> RevertOutcome:
    """`_revert_locked` on the journal's own names: a file or folder whose name is not UTF-8 is put back too."""
    with found_names():
        return _revert_locked(ws, change_id, topic, undo=undo, kind=kind)


def _revert_locked(ws: Workspace, change_id: int, topic: str | None, *, undo: bool = False,
                   kind: str = "revert") -> RevertOutcome:
    """Put back what `change_id` replaced. A file that already holds its previous bytes is left alone (when all
    do, the change is recorded as undone with nothing written); one that holds anything else is a CONFLICT.
    `undo`: the hints name `/undo --skip`, the way past a change that cannot be undone. `kind="apply"`: a
    `/revert`, itself undoable; its CONFLICT names the later change to revert first."""
    journal = ws.journal
    row = journal.get(change_id)
    if row is None:
        if journal.ever_made(change_id):
            raise pruned_error(ws, f"Change {change_id} was pruned from the journal")
        raise StringError("NOT_FOUND", f"No change {change_id} in the journal.",
                          hint(Step("changes"), " lists the changes kept."))
    refuse_unrevertable(ws, row)
    skip_hint: str | Hint = SKIP_HINT if undo else ""
    rows = journal.files(change_id)
    if rows and rows[0].prev_size is not None:  # an append: cut back to the old length (ops/appending.py)
        if row.reverts is not None:  # a /revert that cut appended text off: the journal never kept that text
            raise StringError(
                "INVALID_TARGET",
                f"Change {change_id} cut the lines appended by change {row.reverts} off {rows[0].path}, and the "
                "journal keeps no copy of appended text: it cannot be put back.",
                "Nothing was changed; append the text again by hand if you need it" + skip_hint + ".",
            )
        try:
            return revert_append(ws, change_id, rows[0], topic or row.topic, kind)
        except StringError as exc:
            if exc.code != "CONFLICT":
                raise
            raise _conflict(ws, rows[0].path, True, change_id, undo, kind) from None
    todo: list[tuple[FileRow, FileChange]] = []
    known: dict[int, tuple[changes.Digest, ...]] = {}  # bytes hashed here already: apply_locked hashes them no more
    done: list[RevertedFile] = []
    parts: set[str] = set()  # files changed elsewhere since: only the change's own lines go back (undopart.py)
    for f in rows:
        try:
            prev = None if f.prev_sha is None else journal.blob(f.prev_sha)
        except MissingBlob:
            raise StringError(
                "NOT_FOUND",
                f"Cannot undo change {change_id}: the journal no longer holds the previous bytes of "
                f"{shown_name(f.path)}.",
                f"Nothing was changed; restore {shown_name(f.path)} by hand (from version control) if you need its "
                "old content" + skip_hint + ".",
            ) from None
        now, now_bytes = _read_now(ws, f.path)
        if now != (f.new_sha or "") and now == (f.prev_sha or "") and _same_path(ws, f.path):
            action = "already_gone" if prev is None else "already"
            done.append(RevertedFile(f.path, action, 0 if prev is None else _lines(prev)))
        elif now not in ("?", f.new_sha or ""):  # "?": unreachable; apply_locked below says why (a link out, ...)
            merged = _take_back_part(ws, f, prev) if undo else None
            if merged is None:
                raise _conflict(ws, f.path, f.new_sha is not None, change_id, undo, kind)
            parts.add(f.path)
            if now_bytes is not None:
                known[len(todo)] = ((now_bytes, now),)
            todo.append((f, FileChange(f.path, merged, now, f.prev_mode)))
        else:
            digests = () if now_bytes is None else ((now_bytes, now),)
            if prev is not None and f.prev_sha and len(prev) >= FILE_BLOB:  # a blob file: read back by its hash
                digests += ((prev, f.prev_sha),)
            known[len(todo)] = digests
            todo.append((f, FileChange(f.path, prev, f.new_sha or "", f.prev_mode, f.prev_times)))
    tree = inverse_tree(journal.tree(change_id))
    if tree:
        check_tree(ws, tree, {f.path for f, change in todo if change.data is None}, change_id, undo)
    if todo or tree:
        try:
            cs = apply_locked(ws, [change for _, change in todo], topic or row.topic, kind, change_id, tree,
                              known=known)
        except StringError as exc:
            if exc.code != "CONFLICT" or not todo:
                raise
            for f, _ in todo:  # changed between the check and the write, or reached through a swapped link
                _require_same_path(ws, f.path, change_id, undo)
            raise _conflict(ws, todo[0][0].path, todo[0][0].new_sha is not None, change_id, undo, kind) from None
    else:
        topic = topic or row.topic
        cs = journal.settle(topic, ws.frontend, change_id, kind=kind, command=ws.command_line())
    for f, change in todo:
        action = "deleted" if f.prev_sha is None else ("restored" if f.new_sha is None else "reverted")
        if f.path in parts:
            action = "reverted_part"
        done.append(RevertedFile(f.path, action, 0 if change.data is None else _lines(change.data)))
    order = {f.path: k for k, f in enumerate(rows)}
    files = []
    for file in sorted(done, key=lambda d: order[d.rel]):
        dirs = rows[order[file.rel]].new_dirs
        gone = file.action in ("deleted", "already_gone")
        files.append(replace(file, folders=tuple(changes.remove_new_dirs(ws.confiner, dirs))) if gone and dirs
                     else file)
    return RevertOutcome(cs, change_id, tuple(files), ws.journal.tree(cs) if tree else ())


def check_tree(ws: Workspace, tree: tuple[TreeOp, ...], deleting: set[str], change_id: int, undo: bool) -> None:
    """CONFLICT before anything is written when a folder to remove holds something the change did not put there,
    or something now stands where a folder or link is to be put back."""
    from stringsh.workspace import tree as treeops

    removing = deleting | {op.path for op in tree if op.action == "remove"}
    advice = "Nothing was changed; move it aside, then undo again" + (SKIP_HINT if undo else "") + "."
    for op in tree:
        try:
            spot = treeops.locate(ws.confiner, op.path)
        except StringError:
            continue  # apply_locked says why
        with spot:
            if op.action == "make":
                if spot.st is not None and not (op.kind == "dir" and spot.kind == "dir"):
                    raise StringError("CONFLICT", f"Refusing to undo: {shown_name(op.path)} exists again since change "
                                      f"{change_id} removed it.", advice)
            elif op.kind == "dir" and spot.kind == "dir":
                fd = os.open(spot.name, DIR_FLAGS, dir_fd=spot.fd)
                try:
                    extra = sorted(name for name in os.listdir(fd) if f"{op.path}/{name}" not in removing)
                finally:
                    os.close(fd)
                if extra:
                    folder = shown_name(op.path)
                    raise StringError("CONFLICT", f"Refusing to undo: {shown_name(f'{op.path}/{extra[0]}')} was added "
                                      f"since change {change_id}, and the folder {folder} would have to go.", advice)


def refuse_unrevertable(ws: Workspace, row: ChangeRow) -> None:
    """INVALID_TARGET (with what to do instead) for a change that is not an applied, not yet reverted one."""
    change_id = row.id
    if row.state == "rolled_back":
        raise StringError("INVALID_TARGET", f"Change {change_id} was rolled back: it never took effect.",
                          hint("Nothing was changed; ", Step("changes"), " lists the changes that did."))
    if row.kind != "apply" or row.state != "done":
        raise StringError("INVALID_TARGET", f"Change {change_id} cannot be reverted ({row.kind}, {row.state}).",
                          hint("It is /undo's step back from change ", str(row.reverts), "; ",
                               Step("revert", change=row.reverts), " is not needed, the files already hold their "
                               "earlier content.") if row.kind == "revert" else
                          "Nothing was changed.")
    if row.reverted_by is not None:
        by = ws.journal.get(row.reverted_by)
        redo = by is not None and by.kind == "apply"  # a /revert: reverting it puts this change back
        raise StringError("INVALID_TARGET", f"Change {change_id} was already reverted by change {row.reverted_by}.",
                          hint("Nothing was changed; ", Step("revert", change=row.reverted_by), " puts it back.")
                          if redo else
                          "Nothing was changed.")


def _conflict(ws: Workspace, path: str, wrote: bool, change_id: int, undo: bool,
              kind: str = "revert") -> StringError:
    """The refusal when `path` holds neither what the change wrote nor what it replaced."""
    deleted = wrote and _read_now(ws, path)[0] == ""
    what = "was deleted" if deleted else "changed"
    shown = shown_name(path)
    if kind == "apply":  # /revert ID: name the later change that touched the file, to be reverted first
        later = ws.journal.later_change(path, change_id)
        if later is not None and later.kind == "apply":
            return StringError("CONFLICT", f"Refusing to revert change {change_id}: change {later.id} changed {shown} "
                               "after it.", hint("Nothing was changed; revert the later one first: ",
                                                 Step("revert", change=later.id)))
        return StringError("CONFLICT", f"Refusing to revert change {change_id}: {shown} {what} since (not by a change "
                           "in the journal).", f"Nothing was changed; open {shown} to see its current content.")
    if not undo:
        advice: str | Hint = f"Open {shown} to see its current content; nothing was changed."
    elif deleted:
        advice = Hint(("Nothing was changed; ", Step("undo", skip=True),
                     " leaves it deleted and goes on to older changes."))
    else:
        advice = Hint((f"Nothing was changed; open {shown} to see it, or ", Step("undo", skip=True),
                     " to leave it and go on to older changes."))
    return StringError("CONFLICT", f"Refusing to undo: {shown} {what} since change {change_id} wrote it.", advice)


def _same_path(ws: Workspace, path: str) -> bool:
    try:
        with ws.confiner.resolve(path, create=True) as res:
            return res.rel == path
    except (StringError, OSError):
        return False


def _require_same_path(ws: Workspace, path: str, change_id: int, undo: bool = False) -> None:
    """CONFLICT when `path` now leads elsewhere through a symlink: undo must touch the file the change wrote,
    never delete or rewrite what a link swapped in since points at (apply_locked refuses it; this words it)."""
    try:
        with ws.confiner.resolve(path, create=True) as res:
            now = res.rel
    except (StringError, OSError):
        return
    if now != path:
        raise StringError(
            "CONFLICT",
            f"Refusing to undo: {shown_name(path)} is now a symbolic link (to {shown_name(now)}), not the file "
            f"change {change_id} wrote.",
            f"Nothing was changed; remove the link or restore {shown_name(path)} by hand, then undo again"
            + (SKIP_HINT if undo else "") + ".",
        )


def _take_back_part(ws: Workspace, f: FileRow, prev: bytes | None) -> bytes | None:
    """The file's bytes now with only the lines change `f` wrote put back (undopart.py): None when the change
    created or deleted the file, when the journal no longer holds what it wrote (kept as the previous bytes of
    the change after it; a file changed outside stringsh has none), or when a later change touched those lines."""
    if prev is None or f.new_sha is None or f.prev_size is not None:
        return None
    try:
        new = ws.journal.blob(f.new_sha)
        with ws.confiner.resolve(f.path, create=True) as res:
            now, _ = changes.current_bytes(res)
    except (MissingBlob, StringError, OSError):
        return None
    return None if now is None else take_back(prev, new, now)


def _read_now(ws: Workspace, path: str) -> tuple[str, bytes | None]:
    """The file's hash now ("" when absent, "?" when unreachable) and its bytes (None unless read)."""
    try:
        with ws.confiner.resolve(path, create=True) as res:
            data, _ = changes.current_bytes(res)
    except (StringError, OSError):
        return "?", None
    return ("", None) if data is None else (sha256(data), data)


def _lines(data: bytes) -> int:
    """The reply's line count of `data`: as `count_lines` of its decoded text, or its line breaks when it is no text.
    ASCII without a carriage return or a NUL where decode looks for one counts the same on the bytes, undecoded."""
    if data.isascii() and b"\r" not in data and b"\x00" not in data[:BINARY_SNIFF]:
        return data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
    try:
        text, _, _ = decode(data, "")
    except StringError:
        return data.count(b"\n")
    return count_lines(text)
