"""fs.applyEdits: `{"version":1,"edits":[...]}` applied in order to the file's decoded text; every edit object is
checked (fields and types) before anything runs, the first failure aborts ("Edit <i>: ...", i counted from 0
as upstream) and nothing is written. The edits are the engine's editors (exact replace, line range) on the
file's own text, so a CRLF, CR or mixed file keeps every line ending; the result goes through the engine's
write under the engine's lock, keeping BOM and encoding: a file changed since the read (by another client) gets
the edits applied again to its text then, each find and anchor its own precondition (a list with a replaceRange
is held against the hash of the file as read, as line numbers name that file)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from stringsh.dialects.operator.actions.common import Refused, ask, invalid, ok, unified
from stringsh.errors import StringError
from stringsh.workspace import (
    NO_GUARD,
    ReplaceRefused,
    WholeFile,
    changed_since,
    exact_replace,
    find_all,
    line_spans,
    splice,
    splice_lines,
)

if TYPE_CHECKING:
    from stringsh.protocol.operator_model import Command, Confirmer, Result
    from stringsh.workspace import TextFile, Workspace

#: Each op's fields: required (name, type) and optional ones; any other field is refused.
FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "insertAfter": (("anchor", "text"), ("occurrence",)),
    "insertBefore": (("anchor", "text"), ("occurrence",)),
    "replaceFirst": (("find", "text"), ()),
    "replaceAll": (("find", "text"), ()),
    "replaceRange": (("startLine", "endLine", "text"), ()),
}
NUMBERS = ("occurrence", "startLine", "endLine")


class EditFailed(Exception):
    pass


def parse_edits(payload: str) -> list[dict[str, Any]]:
    """The edit list, every object checked; `Invalid OPERATOR_CMD (ERR_INVALID_EDITS_JSON)` or `ApplyEdits
    failed: Edit <i>: ...` otherwise."""
    try:
        data = json.loads(payload)
    except ValueError:
        raise invalid("ERR_INVALID_EDITS_JSON", "edits_b64 is not valid JSON.") from None
    if not isinstance(data, dict):
        raise invalid("ERR_INVALID_EDITS_JSON", 'edits_b64 must be a JSON object {"version":1,"edits":[...]}.')
    extra = sorted(set(data) - {"version", "edits"})
    if extra:
        raise invalid("ERR_INVALID_EDITS_JSON", f"unknown field {extra[0]!r} (expected version and edits).")
    if type(data.get("version")) is not int or data["version"] != 1:
        raise invalid("ERR_INVALID_EDITS_JSON", f"version must be 1 (got {json.dumps(data.get('version'))}).")
    edits = data.get("edits")
    if not isinstance(edits, list) or not edits:
        raise invalid("ERR_INVALID_EDITS_JSON", "edits must be a non-empty array of edit objects.")
    for index, edit in enumerate(edits):
        _check(index, edit)
    return edits


def _fail(index: int, why: str) -> Refused:
    return Refused(f"ApplyEdits failed: Edit {index}: {why}", "PATCH_FAILED")


def _check(index: int, edit: Any) -> None:
    if not isinstance(edit, dict):
        raise _fail(index, "must be a JSON object")
    op = edit.get("op")
    if not isinstance(op, str) or op not in FIELDS:
        raise _fail(index, f"unknown op {json.dumps(op)} (expected one of {', '.join(FIELDS)})")
    required, optional = FIELDS[op]
    extra = sorted(set(edit) - {"op", *required, *optional})
    if extra:
        raise _fail(index, f"unknown field {extra[0]!r} for {op}")
    for name in required:
        if name not in edit:
            raise _fail(index, f"{op} needs {name}")
    for name in (*required, *optional):
        if name not in edit:
            continue
        value = edit[name]
        if name in NUMBERS:
            if type(value) is not int or value < 1:
                raise _fail(index, f"{name} must be a whole number >= 1 (got {json.dumps(value)})")
        elif not isinstance(value, str):
            raise _fail(index, f"{name} must be a string (got {json.dumps(value)})")
        elif name in ("anchor", "find") and not value:
            raise _fail(index, f"{name} must not be empty")
    if op == "replaceRange" and edit["endLine"] < edit["startLine"]:
        raise _fail(index, f"endLine {edit['endLine']} is before startLine {edit['startLine']}")


def _nth(text: str, anchor: str, occurrence: int) -> tuple[int, int] | None:
    """The `occurrence`-th non-overlapping match of `anchor` (the engine's matching: any line ending)."""
    taken: list[tuple[int, int]] = []
    for start, end in find_all(text, anchor):
        if not taken or start >= taken[-1][1]:
            taken.append((start, end))
    return taken[occurrence - 1] if len(taken) >= occurrence else None


def _insert(text: str, edit: dict[str, Any]) -> str:
    op, anchor, occurrence = edit["op"], edit["anchor"], edit.get("occurrence", 1)
    found = _nth(text, anchor, occurrence)
    if found is None:
        count = len(find_all(text, anchor))
        raise EditFailed("anchor not found" if not count else f"anchor occurs {count} times, not {occurrence}")
    insert, pos = edit["text"], found[0] if op == "insertBefore" else found[1]
    if op == "insertAfter" and "\n" not in anchor and text[pos:pos + 1] in ("\n", "\r", "") \
            and not insert.startswith("\n"):
        insert = "\n" + insert  # upstream HEAD: an anchor ending a line puts the text on a line of its own
    return splice(text, pos, pos, insert)


def _replace(text: str, edit: dict[str, Any]) -> str:
    op = edit["op"]
    try:
        return exact_replace(text, edit["find"], edit["text"], "one" if op == "replaceFirst" else "all").text
    except ReplaceRefused as exc:
        found = len(exc.matches)
        if exc.kind == "not_found":
            raise EditFailed("find not found") from None
        if exc.kind == "ambiguous":
            raise EditFailed(f"find occurs {found} times; replaceFirst needs exactly one match "
                             "(give more context, or use replaceAll)") from None
        raise EditFailed(f"find occurs {found} times and the matches overlap; replaceAll cannot replace each "
                         "(give more context)") from None


def apply_edit(text: str, edit: dict[str, Any]) -> str:
    """One checked edit on the file's text (its own line endings: the engine's editors match `\\n` against any
    ending and give new text the ending of the place it goes); EditFailed says why it cannot apply."""
    op = edit["op"]
    if op in ("insertAfter", "insertBefore"):
        return _insert(text, edit)
    if op in ("replaceFirst", "replaceAll"):
        return _replace(text, edit)
    first, last = edit["startLine"], edit["endLine"]
    total = len(line_spans(text))
    if last > total:
        raise EditFailed(f"lines {first}-{last} are outside the file ({total} lines)")
    return splice_lines(text, first, last, edit["text"])


def fs_apply_edits(workspace: Workspace, command: Command, confirm: Confirmer, topic: str) -> Result:
    """replaceFirst needs a unique match (upstream's meaning); replaceRange's `text` "" removes the lines (upstream
    leaves one empty line) and a final line break is not an extra empty line (upstream splits on it)."""
    if "edits_b64" not in command.payloads:
        raise invalid("ERR_MISSING_EDITS_B64", "edits_b64 is required.")
    edits = parse_edits(command.payloads["edits_b64"])
    path = command.fields["path"]
    file = workspace.read_text(path, topic=topic, legacy="edit")
    text = original = file.text
    for index, edit in enumerate(edits):
        try:
            text = apply_edit(text, edit)
        except EditFailed as exc:
            raise _fail(index, str(exc)) from None
    if text == original:
        return ok(command, "Applied edits (no change)")
    ask(workspace, confirm, command, file.rel, f"apply {len(edits)} edit{'s' if len(edits) > 1 else ''} to "
        f"{file.rel}", lambda: unified(workspace, original, text, f"a/{file.rel}", f"b/{file.rel}"))
    ranges = any(edit["op"] == "replaceRange" for edit in edits)

    def again(current: TextFile) -> str:
        """Under the engine's lock: the edits as confirmed when the file is as read, else applied again to its text
        now (each find and anchor is its own precondition; line numbers name the file as read, so a list with a
        replaceRange is held against the whole file's hash instead)."""
        if current.sha256 == file.sha256:
            return text
        now = current.text
        for index, edit in enumerate(edits):
            try:
                now = apply_edit(now, edit)
            except EditFailed as exc:
                raise _fail(index, str(exc)) from None
        return now

    def stale(rel: str) -> StringError:
        return changed_since(rel, f"Read {rel} again and redo the change.")

    done = workspace.edit_text(path, again, topic=topic, guard=WholeFile(file.sha256) if ranges else NO_GUARD,
                               stale=stale)
    return ok(command, "Applied edits", change_id=done.change_id)
