"""What a change set did, from the journal: each file's bytes before and after, their +/- line counts, and the
unified diff `/changes ID` shows.

The journal keeps the bytes a change replaced (by hash) but not the ones it wrote: those are the file's current
bytes while it still holds them, or the previous bytes a later change kept under the same hash (an append keeps
them for a file up to 1 MiB, ops/appending.py). When neither is
there the "after" side is unknown and said so, never guessed. Lines are compared as they are and shown as
workspace/textdiff.py masks them, so no diff shows a secret, not even one the change broke. Binary files and files
past `MAX_DIFF_BYTES` are summarised by size.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError
from stringsh.escapes import shown_name
from stringsh.hints import command_word
from stringsh.workspace import MissingBlob, decode, line_opcodes, sha256, shown_pair, split_lines
from stringsh.workspace import unified_diff as unified

if TYPE_CHECKING:
    from stringsh.workspace import FileRow, Workspace

#: A side larger than this is summarised by size, not diffed (the matcher is quadratic; a reply is read by a person).
MAX_DIFF_BYTES = 1024 * 1024
#: A `/changes ID` diff is cut after this many lines.
MAX_DIFF_LINES = 2000


class Side(NamedTuple):
    """One side of a file: `data` None with `known` True means the file did not exist."""

    data: bytes | None
    known: bool = True


UNKNOWN = Side(None, False)


def sides(ws: Workspace, row: FileRow) -> tuple[Side, Side]:
    """The file's bytes before and after the change, each as far as the journal and the disk still know them."""
    journal = ws.journal
    after = _after(ws, row)
    # an append (prev_size: only its first prev_size bytes are common) whose result is known: its head is the old
    # file; an undo that cut appended text off, or an append whose result changed since, is known if a copy was kept
    if (row.prev_size is not None and after.data is not None and row.prev_sha != row.new_sha
            and len(after.data) > row.prev_size):
        return Side(after.data[: row.prev_size]), after
    if row.prev_sha is None:
        return Side(None), after
    try:
        return Side(journal.blob(row.prev_sha)), after
    except MissingBlob:
        return UNKNOWN, after


def _after(ws: Workspace, row: FileRow) -> Side:
    if row.new_sha is None:
        return Side(None)
    try:
        return Side(ws.journal.blob(row.new_sha))
    except MissingBlob:
        pass
    try:
        data = ws.current_bytes(row.path)  # as revert reads it: no read record per listed file
    except (StringError, OSError):
        return UNKNOWN
    return Side(data) if data is not None and sha256(data) == row.new_sha else UNKNOWN


def is_binary(data: bytes) -> bool:
    return b"\x00" in data[:8192]


def _text(data: bytes | None, rel: str) -> str | None:
    """The text of one side ("" for no file), None for binary or undecodable bytes."""
    if data is None:
        return ""
    if is_binary(data):
        return None
    try:
        return decode(data, rel)[0]
    except StringError:
        return None


def counts(ws: Workspace, row: FileRow) -> str:
    """`+3 -1`, `binary`, `+? -?` (a side no longer known), or `large` for one file of a change set."""
    before, after = sides(ws, row)
    if not (before.known and after.known):
        return "+? -?"
    if any(s.data is not None and len(s.data) > MAX_DIFF_BYTES for s in (before, after)):
        return "large"
    old, new = _text(before.data, row.path), _text(after.data, row.path)
    if old is None or new is None:
        return "binary"
    added = removed = 0
    for tag, i1, i2, j1, j2 in line_opcodes(split_lines(old), split_lines(new)):
        if tag != "equal":
            removed += i2 - i1
            added += j2 - j1
    return f"+{added} -{removed}"


def file_diff(ws: Workspace, row: FileRow, context: int = 3) -> list[str]:
    """The unified diff of one file (`--- a/path`, `+++ b/path`, `@@` hunks), or one line saying why not."""
    before, after = sides(ws, row)
    path = shown_name(row.path)  # a name holding a newline is one line here too
    if not after.known:
        return [f"{path}: its content after this change is no longer known (it changed again since, and no later "
                "change kept it)"]
    if not before.known:
        return [f"{path}: its content before this change is not kept (an append keeps no copy of a file over 1 MiB)"]
    sizes = f"({_size(before.data)} → {_size(after.data)})"
    if any(s.data is not None and len(s.data) > MAX_DIFF_BYTES for s in (before, after)):
        return [f"{path}: too large to show as a diff {sizes}; /open {command_word(row.path)} reads it"]
    old, new = _text(before.data, path), _text(after.data, path)
    if old is None or new is None:
        return [f"Binary file {path} changed {sizes}"]
    head = ["--- /dev/null" if before.data is None else f"--- {shown_name('a/' + row.path)}",
            "+++ /dev/null" if after.data is None else f"+++ {shown_name('b/' + row.path)}"]
    a, b = shown_pair(old, new, ws.redactor, split_lines)
    hunks = list(unified(a, b, context=context, lineterm=""))[2:]  # its header lines dropped: git's are above
    return [*head, *hunks] if hunks else [f"{path}: no line changed (only its bytes or mode)"]


def _size(data: bytes | None) -> str:
    return "none" if data is None else f"{len(data)} bytes"


def change_text(ws: Workspace, change_id: int) -> list[str]:
    """Every file's diff and every folder or link the change made or removed, cut at MAX_DIFF_LINES."""
    out: list[str] = []
    for op in ws.journal.tree(change_id):
        what = f"link {shown_name(op.path)} → {shown_name(str(op.target))}" if op.kind == "link" else \
            f"folder {shown_name(op.path)}/"
        out.append(f"{what} {'made' if op.action == 'make' else 'removed'}")
    rows = ws.journal.files(change_id)
    for k, row in enumerate(rows):
        if len(out) > MAX_DIFF_LINES:  # no diff is computed past the cut
            out.append(f"... and {len(rows) - k} more files")
            break
        out.extend(file_diff(ws, row))
    if len(out) > MAX_DIFF_LINES + 1:
        tail = out[-1] if out[-1].startswith("... and ") else ""
        out = [*out[:MAX_DIFF_LINES], f"... (the diff is cut at {MAX_DIFF_LINES} lines)", *([tail] if tail else [])]
    return out
