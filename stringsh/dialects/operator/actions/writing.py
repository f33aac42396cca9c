"""fs.write and fs.patch: the new text is worked out first, shown as a diff to the confirmer, then written through
the engine with the sha256 of the bytes it was worked out from as guard (a file changed in between is a
CONFLICT, never overwritten unseen). One engine call, so one journal change set, one /undo."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from stringsh.dialects.operator.actions.common import Refused, ask, error_summary, invalid, ok, unified
from stringsh.dialects.operator.actions.hinting import operator_hint
from stringsh.errors import NOT_FOUND_HINT, StringError
from stringsh.workspace import BodyRefused, WholeFile, count_lines

if TYPE_CHECKING:
    from stringsh.protocol.operator_model import Command, Confirmer, Result
    from stringsh.workspace import Workspace


def current_text(workspace: Workspace, path: str, legacy: bool | str = False) -> tuple[str | None, str | None]:
    """(sha256, text) of the file now: (None, None) when absent, text None when it is not text (binary, too
    large, not decodable): then the diff names the file instead of showing lines. `legacy`: a file that is not
    UTF-8 is read as Latin-1 (what a whole write keeps it in)."""
    sha = workspace.fingerprint(path)
    if sha is None:
        return None, None
    try:
        return sha, workspace.read_text(path, legacy=legacy).text
    except StringError:
        return sha, None


def change_diff(workspace: Workspace, rel: str, old: str | None, new: str, existed: bool) -> str:
    if existed and old is None:
        return f"Binary or unreadable file {rel} is replaced by {count_lines(new)} lines of text"
    return unified(workspace, old or "", new, f"a/{rel}" if existed else "/dev/null", f"b/{rel}")


def fs_write(workspace: Workspace, command: Command, confirm: Confirmer, topic: str) -> Result:
    """`content_b64` (preferred) or single-line `content`; parents are created (as upstream). An existing file
    keeps its encoding (Latin-1 too), BOM and dominant line ending (the engine's write), so `\\n` text written over
    a CRLF file stays CRLF. Summary "Wrote file"."""
    if "content_b64" in command.payloads:
        text = command.payloads["content_b64"]
    elif "content" in command.fields:
        text = command.fields["content"]
        if "\n" in text or "\r" in text:
            raise invalid("ERR_CONTENT_HAS_NEWLINES", "content contains newline; use content_b64.")
    else:
        raise invalid("ERR_MISSING_WRITE_CONTENT", "fs.write requires content or content_b64.")
    path = command.fields["path"]
    rel = workspace.relative(path)
    sha = workspace.fingerprint(path)
    verb = "overwrite" if sha is not None else "create"
    ask(workspace, confirm, command, rel, f"{verb} {rel} ({count_lines(text)} lines)",
        lambda: change_diff(workspace, rel, current_text(workspace, path, legacy=True)[1], text, sha is not None))
    written = workspace.write_text(path, text, topic=topic, guard=WholeFile(sha if sha is not None else ""))
    return ok(command, "Wrote file", change_id=written.change_id)


def _single_file_diff(text: str, rel: str) -> str:
    """Upstream's applier takes bare hunks (no ---/+++ lines: the block's `path` names the file); give such a
    diff the headers the strict parser needs."""
    for line in text.replace("\r\n", "\n").split("\n"):
        if line.startswith("--- ") or line.startswith("diff "):
            return text
        if line.startswith("@@"):
            return f"--- a/{rel}\n+++ b/{rel}\n{text}"
    return text


def fs_patch(workspace: Workspace, command: Command, confirm: Confirmer, topic: str) -> Result:
    """A strict unified diff of `path` alone (workspace/unified.py parses it, the engine's exact hunk applier
    applies it): a diff of another file or of several is refused. Bare hunks are taken as upstream takes them.
    Unlike upstream (which joins the result with `\\n`), the file's CRLF and BOM are kept."""
    from stringsh.workspace import ChangeSet, apply_hunks, parse_diff

    if "patch_b64" not in command.payloads:
        raise invalid("ERR_MISSING_PATCH_B64", "patch_b64 is required.")
    path = command.fields["path"]
    rel = workspace.relative(path)
    try:
        patches = parse_diff(_single_file_diff(command.payloads["patch_b64"], rel))
    except StringError as exc:
        raise Refused(error_summary(exc, "Patch failed: "), exc.code, operator_hint(exc)) from None
    if len(patches) != 1:
        names = ", ".join(p.path for p in patches)
        raise Refused(f"Patch failed: the diff changes {len(patches)} files ({names}); fs.patch takes a diff of "
                      f"{rel} alone.", "INVALID_PAYLOAD")
    patch = patches[0]
    if workspace.relative(patch.path) != rel:
        raise Refused(f"Patch failed: the diff changes {patch.path}, not {rel}; nothing was written.",
                      "INVALID_PAYLOAD")
    sha, old = current_text(workspace, path, legacy="edit")  # a Latin-1 file is patched in Latin-1, as /patch is
    try:
        if patch.action == "create":
            new = apply_hunks("", patch.hunks, rel, workspace.redactor)
        elif sha is None:
            raise StringError("NOT_FOUND", f"File not found: {rel}", NOT_FOUND_HINT)
        elif old is None:
            old = workspace.read_text(path, legacy="edit").text  # its own refusal (BINARY_FILE, ENCODING, TOO_LARGE)
        if patch.action != "create":
            new = apply_hunks(old or "", patch.hunks, rel, workspace.redactor)
    except StringError as exc:
        raise Refused(error_summary(exc, "Patch failed: "), exc.code, operator_hint(exc)) from None
    removed = patch.action == "delete"
    ask(workspace, confirm, command, rel, f"patch {rel} (+{patch.added} -{patch.removed} lines)",
        lambda: unified(workspace, old or "", new, f"a/{rel}" if sha is not None else "/dev/null",
                        "/dev/null" if removed else f"b/{rel}"))
    # A new file must not appear meanwhile; an existing one is guarded by each hunk's exact context, checked under
    # the engine's lock in the file as it is then (a change elsewhere in it does not refuse the patch).
    guarded = dataclasses.replace(patch, path=rel, expected_prev_sha256=None if sha is not None else "")
    try:
        change_id = workspace.apply(ChangeSet(patches=[guarded]), topic=topic)
    except StringError as exc:
        if exc.code in ("PATCH_FAILED", "INVALID_PAYLOAD") and not isinstance(exc, BodyRefused):
            raise Refused(error_summary(exc, "Patch failed: "), exc.code, operator_hint(exc)) from None
        raise
    return ok(command, "Patched file", change_id=change_id)
