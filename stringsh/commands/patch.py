"""/patch: a unified diff in the body (as OPERATOR_CMD's strict `fs.patch`, several files at once), applied as one
change set: every hunk's context matches exactly or nothing is written, and one /undo takes back every file.

Parsing is workspace/unified.py (unidiff), the exact application workspace/hunks.py, under the engine's lock:
each hunk's context is its own precondition, so a change elsewhere in the file since this topic read it does not
refuse the patch (no whole-file hash is asked). This module adds the hints that name the String Commands to
re-read with, and the reply."""

from __future__ import annotations

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.documents.diffreply import with_diff
from stringsh.errors import Step, StringError, hint
from stringsh.protocol.response import Result, document_fields
from stringsh.workspace import ChangeSet, Patch, PatchFailed, is_codex_patch, parse_diff, patched_line

USAGE = "Usage: /patch <<EOF\n--- a/path\n+++ b/path\n@@ -1,2 +1,2 @@\n …\nEOF"
USAGE_HINT = ("The body is a unified diff (git diff, diff -u) or Codex's apply_patch format ('*** Begin Patch' …): one "
              "or more files, each with its hunks.")


def summary(patch: Patch, rel: str) -> str:
    if patch.action == "create":
        return f"{rel} (created, +{patch.added})"
    if patch.action == "delete":
        return f"{rel} (deleted, -{patch.removed})"
    return f"{rel} (+{patch.added} -{patch.removed})"


def reread(rel: str, first: int, last: int) -> Step:
    """The read that shows the lines a failed hunk covers (the whole file when it has none)."""
    return Step("read", path=rel) if not last else Step("read", path=rel, start=first, end=last)


@handler("patch")
def patch(ctx: Context) -> Result:
    if ctx.args:
        raise StringError("INVALID_PAYLOAD", "/patch takes no arguments; the diff names its files.", USAGE)
    body = ctx.body
    if body is None or not body.strip():
        raise StringError("INVALID_PAYLOAD", "The patch is empty: give the unified diff as the body.", USAGE)
    workspace = ctx.dispatcher.workspace
    limit = workspace.policy.limits.max_patch_bytes
    size = len(body.encode("utf-8", "surrogatepass"))
    if size > limit:
        raise StringError("TOO_LARGE", f"The patch is larger than the policy allows ({size} > {limit} bytes).",
                          "Send it in parts (each a complete diff of some files), or raise [limits] max_patch_bytes.")
    seen = ctx.session.seen
    # Each hunk's exact context, checked in the file as it is under the engine's lock, is the hunk's own guard:
    # no whole-file hash on top, so a change elsewhere in the file (by another client) does not refuse it.
    if is_codex_patch(body):
        return _codex(ctx, body)
    patches = parse_diff(body)
    in_place = any(p.action == "modify" for p in patches)
    try:
        change_id = workspace.apply(ChangeSet(patches=patches), topic=ctx.session.topic,
                                    op="edit" if in_place else "write")
    except PatchFailed as exc:
        raise _worded(exc) from None
    rows = sorted(workspace.journal.files(change_id), key=lambda row: row.idx)
    documents = ctx.documents
    parts = []
    for p, row in zip(patches, rows, strict=True):
        if row.new_sha is None:
            seen.pop(row.path, None)
        elif seen.get(row.path, row.prev_sha) == row.prev_sha:  # the file was as this topic read it (or unread)
            documents.after_write(row.path, row.new_sha)
        # else others changed it elsewhere meanwhile: this topic has not read their lines, so `seen` stays
        parts.append(summary(p, row.path))
    if len(parts) == 1:
        reply = Result(f"Patched {parts[0]}", fields=document_fields(rows[0].path))
    else:
        reply = Result(f"Patched {len(parts)} files: {', '.join(parts)}")
    return with_diff(ctx, reply, change_id)


def _worded(exc: PatchFailed) -> StringError:
    """The engine's refusal with the String Command that re-reads the lines it names."""
    return StringError(exc.code, exc.message,
                       hint("Re-read those lines and redo the hunk: ", reread(exc.rel, exc.first, exc.last)))


def _codex(ctx: Context, body: str) -> Result:
    """Codex's apply_patch format (workspace/codexpatch.py): as a unified diff, each hunk's exact context is its own
    guard (no whole-file hash), one change set, one undo."""
    workspace = ctx.dispatcher.workspace
    seen = ctx.session.seen
    topic = ctx.session.topic
    try:
        change_id, parts = workspace.apply_codex(body, topic=topic)
    except PatchFailed as exc:
        raise _worded(exc) from None
    rows = sorted(workspace.journal.files(change_id), key=lambda row: row.idx)
    for row in rows:
        if row.new_sha is None:
            seen.pop(row.path, None)
        else:
            ctx.documents.after_write(row.path, row.new_sha)
    written = [row.path for row in rows if row.new_sha is not None]
    fields = document_fields(written[0]) if len(parts) == 1 and written else None
    return with_diff(ctx, Result(patched_line(parts), fields=fields), change_id)
