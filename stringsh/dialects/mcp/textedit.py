"""`edit_file`: exact-text edits that keep the file's bytes. Unlike the reference server (which turns CRLF into
LF, takes the first of several matches and rewrites the file as UTF-8) each `oldText` must match exactly one
place; an LF `oldText` matches a CRLF file (and its `newText` gets CRLF endings); the file is written back in its
own encoding and BOM through one journalled change set (all edits or none, undoable), guarded by the hash of
the bytes read."""

from __future__ import annotations

import codecs
from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError
from stringsh.workspace.models import ChangeSet
from stringsh.workspace.textdiff import shown_pair, unified

if TYPE_CHECKING:
    from stringsh.dialects.mcp.calls import Call
    from stringsh.workspace.redact import Redactor

BOMS = {"utf-8": codecs.BOM_UTF8, "utf-16-le": codecs.BOM_UTF16_LE, "utf-16-be": codecs.BOM_UTF16_BE}
REREAD = "Read the file again (read_text_file) and copy oldText from it exactly."


class EditOperation(NamedTuple):
    old: str
    new: str


def _count(text: str, needle: str) -> int:
    """Occurrences, overlapping ones included (`foo\\nfoo\\n` in `foo\\nfoo\\nfoo\\n` is two, so ambiguous)."""
    count, start = 0, text.find(needle)
    while start != -1 and count < 2:
        count += 1
        start = text.find(needle, start + 1)
    return count


def _crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


def _apply_one(text: str, edit: EditOperation, number: int, path: str, file_crlf: bool) -> str:
    if not edit.old:
        raise StringError("INVALID_PAYLOAD", f"Edit {number}: oldText is empty",
                          "Give the text to replace; write_file creates or overwrites a whole file.")
    if edit.old == edit.new:
        raise StringError("INVALID_PAYLOAD", f"Edit {number}: oldText and newText are the same",
                          "Give the changed text as newText.")
    candidates = [(edit.old, edit.new)]
    if file_crlf and "\r" not in edit.old:
        candidates.append((_crlf(edit.old), _crlf(edit.new)))
    for old, new in candidates:
        found = _count(text, old)
        if found == 1:
            at = text.find(old)
            return text[:at] + new + text[at + len(old):]
        if found > 1:
            raise StringError("PATCH_FAILED", f"Edit {number}: oldText matches more than one place in {path}; "
                              "nothing was written", "Add surrounding lines to oldText so it matches one place.")
    raise StringError("PATCH_FAILED", f"Edit {number}: oldText not found in {path}; nothing was written", REREAD)


def _keepends(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _diff(path: str, before: str, after: str, redactor: Redactor | None) -> str:
    """A git-style unified diff of the change (LF endings for showing, as the reference server's), its lines
    masked as workspace/textdiff.py shows them."""
    old, new = shown_pair(before.replace("\r\n", "\n"), after.replace("\r\n", "\n"), redactor, _keepends)
    lines = unified(old, new, fromfile=f"{path}\toriginal", tofile=f"{path}\tmodified")
    body = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
    return f"Index: {path}\n{'=' * 67}\n{body}"


def apply_edits(call: Call, path: str, edits: list[EditOperation], *, dry_run: bool) -> str:
    if not edits:
        raise StringError("INVALID_PAYLOAD", "No edits given", "Give at least one {oldText, newText} edit.")
    checked = call.path(path)
    current = call.ws.read_text(checked, topic=call.topic)
    text = current.text
    file_crlf = current.newline in ("crlf", "mixed") and "\r\n" in text
    for number, edit in enumerate(edits, 1):
        text = _apply_one(text, edit, number, path, file_crlf)
    shown = _diff(path, current.text, text, call.ws.redactor)
    ticks = "`" * 3
    while ticks in shown:
        ticks += "`"
    reply = f"{ticks}diff\n{shown}{ticks}\n\n"
    if dry_run:
        return reply
    data = BOMS[current.encoding] * current.bom + text.encode(current.encoding)
    change = ChangeSet().write(checked, data, expected_prev_sha256=current.sha256)
    change_id = call.ws.apply(change, topic=call.topic, op="edit")
    return f"{reply}Change {change_id}, undoable."
