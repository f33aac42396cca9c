"""`edit_file`: the engine's exact-replace editor (workspace/ops/replace.py) in the reference server's shapes.
Unlike the reference server (which turns CRLF into LF, takes the first of several matches and rewrites the file
as UTF-8) each `oldText` must match exactly one place; its line breaks match any of the file's (so text copied
from `read_text_file`, which shows `\\n`, matches a CRLF file) and `newText` takes the ending of the text it
replaces; the file keeps its encoding and BOM, through one journalled change (all edits or none, undoable),
guarded by the hash of the bytes read."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from stringsh.dialects.mcp.shaped import Shaped
from stringsh.errors import StringError
from stringsh.workspace import PairRefused, replace_all_pairs, shown_pair, unified_diff

if TYPE_CHECKING:
    from stringsh.dialects.mcp.calls import Call
    from stringsh.workspace import Redactor

REREAD = "Read the file again (read_text_file) and copy oldText from it exactly."


class EditOperation(NamedTuple):
    old: str
    new: str


def changed_line(change_id: int) -> str:
    """The line every MCP edit reply ends with: the change set's id, for revert and changes."""
    return f"Change {change_id}, undoable."


def _check(edits: list[EditOperation]) -> None:
    """The arguments every edit needs, checked before anything is matched."""
    if not edits:
        raise StringError("INVALID_PAYLOAD", "No edits given", "Give at least one {oldText, newText} edit.")
    for number, edit in enumerate(edits, 1):
        if not edit.old:
            raise StringError("INVALID_PAYLOAD", f"Edit {number}: oldText is empty",
                              "Give the text to replace; write_file creates or overwrites a whole file.")
        if edit.old == edit.new:
            raise StringError("INVALID_PAYLOAD", f"Edit {number}: oldText and newText are the same",
                              "Give the changed text as newText.")


def _refusal(exc: PairRefused, path: str) -> StringError:
    number = exc.index + 1
    if exc.kind == "not_found":
        return StringError("PATCH_FAILED", f"Edit {number}: oldText not found in {path}; nothing was written", REREAD)
    return StringError("PATCH_FAILED", f"Edit {number}: oldText matches more than one place in {path}; "
                       "nothing was written", "Add surrounding lines to oldText so it matches one place.")


def _keepends(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _diff(path: str, before: str, after: str, redactor: Redactor | None) -> str:
    """A git-style unified diff of the change (LF endings for showing, as the reference server's), its lines
    masked as workspace/textdiff.py shows them."""
    old, new = shown_pair(before.replace("\r\n", "\n"), after.replace("\r\n", "\n"), redactor, _keepends)
    lines = unified_diff(old, new, fromfile=f"{path}\toriginal", tofile=f"{path}\tmodified")
    body = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
    return f"Index: {path}\n{'=' * 67}\n{body}"


def apply_edits(call: Call, path: str, edits: list[EditOperation], *, dry_run: bool) -> Shaped:
    _check(edits)
    checked = call.path(path)
    pairs = tuple((edit.old, edit.new) for edit in edits)
    try:
        if dry_run:
            before = call.ws.read_text(checked, topic=call.topic, legacy="edit").text
            after, _ = replace_all_pairs(before, pairs, "one")
            change_id = None
        else:
            done = call.ws.replace(checked, pairs, topic=call.topic)
            before, after, change_id = done.before, done.text, done.change_id
    except PairRefused as exc:
        raise _refusal(exc, path) from None
    shown = _diff(path, before, after, call.ws.redactor)
    ticks = "`" * 3
    while ticks in shown:
        ticks += "`"
    reply = f"{ticks}diff\n{shown}{ticks}\n\n"
    text = reply if change_id is None else f"{reply}{changed_line(change_id)}"
    return Shaped(text, {"path": path, "diff": shown, "dryRun": dry_run, "changeId": change_id})
