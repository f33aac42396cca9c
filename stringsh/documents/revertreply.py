"""What an undo or a revert did, in words: shared by /undo and /revert (command modules never import each other)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.errors import StringError
from stringsh.escapes import shown_name

if TYPE_CHECKING:
    from stringsh.workspace import RevertedFile, RevertOutcome, TreeOp


def describe(file: RevertedFile, outcome: RevertOutcome) -> str:
    rel = shown_name(file.rel)  # a name that is not UTF-8 (an undo of a folder's /rm -r) shown as every reply does
    if file.action == "deleted":
        text = f"deleted {rel} (was newly created)"
    elif file.action == "already_gone":
        text = f"{rel} is already gone (change {outcome.reverted_id} created it), nothing written"
    elif file.action == "already":
        text = (f"{rel} already holds its content from before change {outcome.reverted_id} "
                f"({file.lines} lines), nothing written")
    elif file.action == "reverted_part":
        text = (f"reverted {rel} ({file.lines} lines): only the lines change {outcome.reverted_id} wrote, "
                "later changes elsewhere in it kept")
    else:
        text = f"{file.action} {rel} ({file.lines} {'line' if file.lines == 1 else 'lines'})"
    if file.folders:
        folders = ", ".join(shown_name(folder) for folder in file.folders)
        text += f", removed its new empty folder{'s' if len(file.folders) > 1 else ''} {folders}"
    return text


#: An undo of a big /rm -r or /mv names this many files and folders, then how many more.
MAX_PARTS = 20


def describe_tree(op: TreeOp) -> str:
    """A folder or symlink the undo put back or removed (a /mkdir, /mv or /rm undone)."""
    path = shown_name(op.path)
    if op.kind == "link":
        target = shown_name(op.target or "")
        return f"put back link {path} → {target}" if op.action == "make" else f"removed link {path}"
    return f"put back folder {path}" if op.action == "make" else f"removed folder {path}"


def outcome_parts(outcome: RevertOutcome) -> list[str]:
    """Folders put back first, then the files, then the folders removed; at most MAX_PARTS, then how many more."""
    parts = [describe_tree(op) for op in outcome.tree if op.action == "make"]
    parts += [describe(file, outcome) for file in outcome.files]
    parts += [describe_tree(op) for op in outcome.tree if op.action == "remove"]
    if len(parts) > MAX_PARTS:
        parts = [*parts[:MAX_PARTS], f"and {len(parts) - MAX_PARTS} more"]
    return parts


def parse_id(text: str) -> int:
    """A change id as /changes lists it; INVALID_PAYLOAD with a hint otherwise."""
    if not text.isdigit() or len(text) > 18 or int(text) == 0:
        raise StringError("INVALID_PAYLOAD", f"Not a change id: {text}",
                          "A change id is a whole number above 0, as /changes lists them.")
    return int(text)
