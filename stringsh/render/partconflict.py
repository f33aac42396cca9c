"""The CONFLICTs of an edit of one part of a file (a block, a symbol) whose part is not the text the edit read:
below the documents layer, so every dialect's symbol edit (render/code/write.py) words them as `/edit` does."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.errors import StringError

if TYPE_CHECKING:
    from stringsh.workspace import Workspace

#: Lines of a changed part a CONFLICT shows.
SHOWN_LINES = 40


def shown(workspace: Workspace, text: str) -> str:
    """A part's text for a refusal: masked line for line, at most SHOWN_LINES lines."""
    lines = workspace.redact_lines(text).split("\n")
    if len(lines) > SHOWN_LINES:
        lines = [*lines[:SHOWN_LINES], f"… ({len(lines) - SHOWN_LINES} more lines: /edit to see them all)"]
    return "\n".join(lines)


def block_changed(workspace: Workspace, label: str, now: str) -> StringError:
    """CONFLICT for a block whose text is not the one this topic read: its text now, so the edit can be redone."""
    return StringError(
        "CONFLICT",
        f"Refusing to edit {label}: the block changed since this topic read it; nothing was written.",
        f"Its text now:\n{shown(workspace, now)}\nRedo the edit on this text: /edit {label} with the new body.",
    )


def block_gone(label: str, path: str) -> StringError:
    """CONFLICT for a block this topic read that is no longer in the file."""
    return StringError(
        "CONFLICT",
        f"Refusing to edit {label}: the block is no longer in {path} (changed since this topic read it); "
        "nothing was written.",
        f"Run /open {path} to see its blocks now.",
    )
