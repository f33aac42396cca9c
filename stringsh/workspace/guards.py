"""The guards a write is held against, and the checks every body passes, inside the engine: once, for every dialect.

A caller picks one guard from a closed set: `WholeFile` (the whole file's hash as the caller read it), `PartText`
(the text of the part it edits, as it read it: a block, a symbol, a line range, found again under the lock) or
`NO_GUARD` (the file as it is under the lock). Whatever the guard, the engine refuses a body that writes a shown
mask back over the secret it hides (`refuse_mask_writeback`) and a part edit that would empty its part unasked
(`refuse_empty`); the other checks (secret files, protected paths and the state folder, read-only mode, the
file's encoding) are the confiner's, the policy's and textio's, run by the same operations. The refusal texts
live here, once: the CONFLICTs of a file or part that changed since it was read included."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import Step, StringError, hint
from stringsh.escapes import escape_controls, holds_controls, shown_name

if TYPE_CHECKING:
    from collections.abc import Iterable

    from stringsh.workspace.engine import Workspace
    from stringsh.workspace.patches import Hunk

#: An escape as replies show a control character (`escapes.hex_escape`).
ESCAPED = re.compile(r"\\x([0-9a-f]{2})")
#: A line as /open, view_symbol and every numbered view print it: `815 | text`, the number right-aligned.
NUMBERED = re.compile(r" *(\d+) \|(?: |$)")
#: Lines of a changed part a CONFLICT shows.
SHOWN_LINES = 40


class WholeFile(NamedTuple):
    """The write applies only while the file has the bytes the caller read (`sha256`; "": it did not exist).

    The guards are immutable NamedTuples rather than frozen dataclasses: the facade imports them on every start."""

    sha256: str


class PartText(NamedTuple):
    """The write applies while the part it edits, found again in the file under the lock, still reads `text`:
    whatever changed elsewhere in the file."""

    text: str


class Unguarded(NamedTuple):
    """The write applies to the file as it is under the lock (a new file, `--force`, an append)."""


NO_GUARD = Unguarded()
Guard = WholeFile | PartText | Unguarded


# -- body checks ------------------------------------------------------------------------------------------------


class BodyRefused(StringError):
    """A body check's refusal: an engine refusal like any other, never the failure of the operation that ran it,
    so a dialect that words its operation's own failures apart (fs.patch's `Patch failed: `) shows this one as it
    shows every other refusal (`CODE: message`)."""


def refuse_mask_writeback(ws: Workspace, label: str, current: str, body: str) -> None:
    """INVALID_PAYLOAD when `body` (replacing `current`) holds more masks than `current` does while `current`
    holds a secret: the extra masks stand where secrets were shown masked. The same for a control character
    shown escaped (`refuse_escape_writeback`)."""
    refuse_escape_writeback(label, current, body)
    mask = ws.policy.secrets.replacement
    if body.count(mask) <= current.count(mask) or not ws.redactor.finds_secret(current):
        return
    raise BodyRefused(
        "INVALID_PAYLOAD",
        f"Refusing to write {label}: the body contains {mask} where the file holds a secret; nothing was written.",
        "stringsh shows secrets masked. Rewrite those lines in full with their real text, "
        "or edit that part outside stringsh.",
    )


def refuse_escape_writeback(label: str, current: str, body: str) -> None:
    """INVALID_PAYLOAD when `body` holds more of an escape `\\xHH` than `current` does while `current` holds the
    control character it stands for: replies show ESC, BEL, C1… as that text (`escapes.escape_controls`), and text
    copied back from one would write the four characters where the file held the one (docs/security.md)."""
    if "\\x" not in body or not holds_controls(current):
        return
    for digits in dict.fromkeys(ESCAPED.findall(body)):  # the first in the body first
        escape, char = f"\\x{digits}", chr(int(digits, 16))
        if char in current and escape_controls(char) == escape and body.count(escape) > current.count(escape):
            raise BodyRefused(
                "INVALID_PAYLOAD",
                f"Refusing to write {shown_name(label)}: the body contains {escape} where the file holds the control "
                "character a reply shows as that text; nothing was written.",
                hint("stringsh shows control characters escaped. Leave those lines out of the edit (replace lines or a "
                     "block around them), or write the bytes in the shell (", Step("programs", command="printf"), ")."),
            )


def refuse_mask_in_hunks(ws: Workspace, label: str, hunks: Iterable[Hunk]) -> None:
    """`refuse_mask_writeback` on each hunk of a patch (unified or Codex): its removed lines, the file's own text,
    against its added ones."""
    mask = ws.policy.secrets.replacement
    for hunk in hunks:
        lines = hunk.lines.split("\n")
        added = "\n".join(line[1:] for line in lines if line.startswith("+"))
        if mask in added or "\\x" in added:
            removed = "\n".join(line[1:] for line in lines if line.startswith("-"))
            refuse_mask_writeback(ws, label, removed, added)


def refuse_empty(body: str, label: str, force: bool) -> None:
    """An empty body would silently empty the part (or, through `/edit`, the file): only with --force."""
    if not force and not body.strip():
        raise BodyRefused(
            "INVALID_PAYLOAD",
            f"Refusing to empty {label}: the body is empty.",
            hint("To empty it on purpose, send the empty body again with --force: ", Step("force", target=label),
                 ". Nothing was written."),
        )


def numbered_body(body: str) -> bool:
    """Whether every non-blank line of `body` starts with a line number as a numbered view prints it, the numbers
    counting up by one: a view pasted as code, which would write its numbers into the file."""
    numbers = [NUMBERED.match(line) for line in body.replace("\r\n", "\n").split("\n") if line.strip()]
    if not numbers or not all(numbers):
        return False
    values = [int(match.group(1)) for match in numbers if match]
    return values == list(range(values[0], values[0] + len(values)))


def refuse_numbered(body: str, label: str) -> None:
    """INVALID_PAYLOAD for a body whose every line carries a numbered view's `N | `, whatever --force says: the
    numbers are not the file's text, and stripping them would guess at a view that may have been cut."""
    if numbered_body(body):
        raise BodyRefused(
            "INVALID_PAYLOAD",
            f"Refusing to write {shown_name(label)}: every line of the body starts with a line number ('N | '), as "
            "numbered views show lines; nothing was written.",
            hint("Remove the line numbers (the 'N | ' at the start of each line) and send the code alone."),
        )


# -- the CONFLICTs of a guard that no longer holds ----------------------------------------------------------------


def changed_since(rel: str, hint: str | None = None) -> StringError:
    """CONFLICT for a file whose bytes are not the ones the caller read (a `WholeFile` guard)."""
    return StringError("CONFLICT", f"{rel} changed since it was read; nothing was written.", hint)


def shown(ws: Workspace, text: str) -> str:
    """A part's text for a refusal: masked line for line, at most SHOWN_LINES lines."""
    lines = ws.redact_lines(text).split("\n")
    if len(lines) > SHOWN_LINES:
        lines = [*lines[:SHOWN_LINES], f"… ({len(lines) - SHOWN_LINES} more lines: /edit to see them all)"]
    return "\n".join(lines)


def block_changed(ws: Workspace, label: str, now: str) -> StringError:
    """CONFLICT for a block or symbol whose text is not the one read: its text now, so the edit can be redone."""
    return StringError(
        "CONFLICT",
        f"Refusing to edit {label}: the block changed since this topic read it; nothing was written.",
        hint(f"Its text now:\n{shown(ws, now)}\nRedo the edit on this text: ", Step("edit", target=label),
             " with the new body."),
    )


def block_gone(label: str, path: str) -> StringError:
    """CONFLICT for a block or symbol that was read and is no longer in the file."""
    return StringError(
        "CONFLICT",
        f"Refusing to edit {label}: the block is no longer in {path} (changed since this topic read it); "
        "nothing was written.",
        hint("Run ", Step("read", path=path), " to see its blocks now."),
    )


def lines_changed(ws: Workspace, label: str, now: str, edit: Step) -> StringError:
    """CONFLICT for a line range whose lines no longer hold the text read; `edit` shows the current numbers."""
    return StringError(
        "CONFLICT",
        f"Refusing to replace {label}: those lines changed since this topic read them; nothing was written.",
        hint(f"They hold now:\n{shown(ws, now)}\nRun ", edit, " for current line numbers, then retry."),
    )
