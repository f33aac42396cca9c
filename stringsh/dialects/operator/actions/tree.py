"""fs.delete, fs.copy, fs.move (and its alias fs.rename): the engine's delete, copy_file and move, each one
journalled change set, so /undo brings a deleted folder back (upstream trashes: this is its undo)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.dialects.operator.actions.common import Refused, ask, invalid, ok, unified
from stringsh.dialects.operator.actions.writing import current_text
from stringsh.escapes import shown_name

if TYPE_CHECKING:
    from stringsh.protocol.operator_model import Command, Confirmer, Result
    from stringsh.workspace import Workspace

#: Files named in the confirmation of a folder's delete; the rest are counted.
LISTED = 200


def _removed(workspace: Workspace, rel: str) -> str:
    """The diff of a file's delete: every line removed (or a line naming a file that is not text)."""
    _, text = current_text(workspace, rel)
    if text is None:
        return f"Binary or unreadable file {rel} is deleted"
    return unified(workspace, text, "", f"a/{rel}", "/dev/null") or f"Empty file {rel} is deleted"


def _tree(workspace: Workspace, rel: str) -> list[str]:
    """The folder's entries as shown, folder by folder (folders with a trailing `/`), at most LISTED + 1: from the
    engine's one walk of the tree, which reaches a folder whose name is not UTF-8 too (a path naming it would not)."""
    listed = workspace.list_tree(rel, limit=LISTED + 1)
    out: list[str] = []
    stack = [(rel, listed.entries)]
    while stack and len(out) <= LISTED:
        folder, entries = stack.pop()
        for entry in entries:
            path = f"{folder}/{entry.name}" if folder != "." else entry.name
            out.append(shown_name(path) + ("/" if entry.is_dir else ""))  # as every listing shows a name
            if entry.is_dir:
                stack.append((path, entry.children))
    return out


def fs_delete(workspace: Workspace, command: Command, confirm: Confirmer, topic: str) -> Result:
    """A file, a link (never what it points at) or a folder with everything in it (upstream trashes folders
    too). The confirmer sees every removed line of a file, or the entries of a folder."""
    path = command.fields["path"]
    info = workspace.stat(path, follow=False)
    if info is None:
        raise Refused(f"NOT_FOUND: File not found: {workspace.relative(path)}")
    rel = info.rel
    if info.kind == "dir":
        entries = _tree(workspace, rel)
        shown = "\n".join(f"deleted: {entry}" for entry in entries[:LISTED])
        more = "\n... and more" if len(entries) > LISTED else ""
        ask(workspace, confirm, command, rel, f"delete folder {rel} and everything in it", shown + more)
    elif info.kind == "symlink":
        ask(workspace, confirm, command, rel, f"delete link {rel}", f"deleted: link {rel} -> {info.target or '?'}")
    else:
        ask(workspace, confirm, command, rel, f"delete {rel}", lambda: _removed(workspace, rel))
    done = workspace.delete(path, recursive=info.kind == "dir", topic=topic)
    return ok(command, "Deleted", change_id=done.change_id)


def _overwrite(command: Command) -> bool:
    value = command.fields.get("overwrite", "false").strip()
    if value not in ("true", "false"):
        raise invalid("ERR_INVALID_OVERWRITE", f"overwrite must be true or false (got {value!r}).")
    return value == "true"


def _target(workspace: Workspace, command: Command) -> tuple[str, str, bool]:
    """(source rel, destination rel, overwrite); the destination must name the new path itself."""
    source, dest = command.fields["path"], (command.fields.get("path_to") or "").strip()
    if not dest:
        raise invalid("ERR_MISSING_PATH_TO", "path_to is required.")
    overwrite = _overwrite(command)
    src_rel, dest_rel = workspace.relative(source), workspace.relative(dest)
    there = workspace.stat(dest, follow=False)
    if there is not None and there.kind == "dir":
        raise Refused(f"INVALID_TARGET: path_to is an existing folder: {dest_rel}; name the new path itself "
                      f"({dest_rel}/<name>)")
    if there is not None and not overwrite:
        raise Refused(f"CONFLICT: Destination exists: {dest_rel}; add overwrite: true to replace it")
    return src_rel, dest_rel, overwrite


def _copy_folder(workspace: Workspace, command: Command, confirm: Confirmer, topic: str, src: str,
                 dest: str) -> Result:
    """The engine's folder copy: planned (and so checked) first for the confirmation, then made as one change
    set (one /undo)."""
    from stringsh.workspace import LinkInFolder

    try:
        planned = workspace.copy_folder(src, dest, create_parents=True, topic=topic, plan=True)
        files = planned.files
        listing = "\n".join(f"new file: {shown_name(target)}" for target in files[:LISTED])
        more = f"\n... and {len(files) - LISTED} more" if len(files) > LISTED else ""
        ask(workspace, confirm, command, src, f"copy folder {src} to {dest} ({len(files)} files)",
            (listing + more) if files else f"new folder: {dest}")
        copied = workspace.copy_folder(src, dest, create_parents=True, topic=topic)
    except LinkInFolder as exc:
        raise Refused(f"INVALID_TARGET: {shown_name(exc.folder)} holds {shown_name(exc.path)}, a symlink; fs.copy "
                      "copies folders of plain files and folders only") from exc
    return ok(command, "Copied", change_id=copied.change_id)


def fs_copy(workspace: Workspace, command: Command, confirm: Confirmer, topic: str) -> Result:
    """A file (the engine's copy: bytes and mode), or a folder to a new path (the engine's folder copy: one change
    set, modes kept; a secret or a link inside refuses it). An existing destination file is replaced only with
    `overwrite: true` (upstream replaces silently)."""
    src, dest, overwrite = _target(workspace, command)
    source = workspace.stat(src, follow=False)
    if source is not None and source.kind == "dir":
        return _copy_folder(workspace, command, confirm, topic, src, dest)
    dest_sha = workspace.fingerprint(dest)

    def diff() -> str:
        _, text = current_text(workspace, src)
        if text is None:
            return f"copy {src} -> {dest} (binary or unreadable)"
        _, dest_text = current_text(workspace, dest)
        return unified(workspace, dest_text or "", text, f"a/{dest}" if dest_sha else "/dev/null", f"b/{dest}")

    ask(workspace, confirm, command, src, f"copy {src} to {dest}" + (" (replacing it)" if dest_sha else ""), diff)
    copied = workspace.copy_file(src, dest, overwrite=overwrite, create_parents=True, topic=topic)
    return ok(command, "Copied", change_id=copied.change_id)


def fs_move(workspace: Workspace, command: Command, confirm: Confirmer, topic: str) -> Result:
    """A file, link or folder to `path_to` exactly (an existing folder there is refused: upstream's rename would
    not move into it either); missing parents are made. Summary "Moved", or "Renamed" for fs.rename."""
    src, dest, overwrite = _target(workspace, command)
    if workspace.stat(src, follow=False) is None:
        raise Refused(f"NOT_FOUND: File not found: {src}")
    ask(workspace, confirm, command, src, f"move {src} to {dest}", f"rename from {src}\nrename to {dest}")
    moved = workspace.move(src, dest, overwrite=overwrite, create_parents=True, topic=topic)
    return ok(command, "Renamed" if command.action == "fs.rename" else "Moved", change_id=moved.change_id)
