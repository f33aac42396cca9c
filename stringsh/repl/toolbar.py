"""The bottom toolbar: topic, open document and block, stale mark, bash cwd and last exit status, undo depth,
and "read-only: <why>" while the engine refuses changes (degraded mode: its state folder is full, read-only, ...).

State is read from the typed session (its `DocumentView` and `ShellSession`) and the engine (`undo_depth`) and,
for the last exit status, from the last bash reply the REPL saw. Rendering only formats a snapshot, so a redraw
never touches the disk or the journal except for the throttled stale check.
"""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from stringsh.errors import StringError
from stringsh.render.replyparts import BASH_MESSAGE, split_reply

if TYPE_CHECKING:
    from stringsh.dispatcher import Dispatcher
    from stringsh.render.view import DocumentView
    from stringsh.session import Session
    from stringsh.workspace import Workspace

#: Seconds between two stale checks of the open document (each is a stat, and a hash when the stat changed).
STALE_EVERY = 1.0


@dataclass
class ToolbarState:
    """What the toolbar shows; `refresh` updates it after each command, on the command thread."""

    topic: str = "main"
    document: str | None = None
    block: str | None = None
    bash_cwd: str | None = None
    bash_exit: int | None = None
    undo_depth: int | None = None
    _stale_for: DocumentView | None = field(default=None, repr=False)
    _stale_at: float = field(default=0.0, repr=False)
    _stale: bool = field(default=False, repr=False)

    def stale(self, session: Session, workspace: Workspace) -> bool:
        """The stale mark, checked at most once a second: the toolbar is redrawn on every key."""
        document = session.document
        if document is None:
            return False
        now = time.monotonic()
        if self._stale_for is not document:
            self._stale_for, self._stale_at, self._stale = document, now, is_stale(session, workspace)
        elif not self._stale and now - self._stale_at >= STALE_EVERY:
            # once stale, a view stays stale until /refresh or /open replaces it: no re-hashing of a big file
            self._stale_at, self._stale = now, is_stale(session, workspace)
        return self._stale

    def forget_stale(self) -> None:
        """The next redraw checks again (the view was refreshed in place)."""
        self._stale_for, self._stale = None, False

    def note_reply(self, text: str) -> None:
        """Remember the shell's cwd and exit status from a bash reply (`exit: N | cwd: /abs`)."""
        parsed = split_reply(text)
        if parsed.message.startswith("Closed"):
            self.bash_cwd, self.bash_exit = None, None  # /close stops the shell
        match = BASH_MESSAGE.match(parsed.message) if not parsed.error else None
        if match:
            self.bash_exit = int(match.group("rc"))
            self.bash_cwd = match.group("cwd")
        elif parsed.error and parsed.message.startswith("ERROR(EXIT_"):
            code = parsed.message[len("ERROR(EXIT_") :].split(")", 1)[0]
            if code.isdigit():
                self.bash_exit = int(code)

    def refresh(self, dispatcher: Dispatcher, session: Session) -> None:
        self.topic = session.topic
        view: DocumentView | None = session.document
        self.document = view.path if view is not None else None
        self.block = view.block if view is not None else None
        if session.bash is not None:
            self.bash_cwd = session.bash.cwd or self.bash_cwd
        self.undo_depth = undo_depth(dispatcher, self.topic)


def undo_depth(dispatcher: Dispatcher, topic: str) -> int | None:
    """How many `/undo` steps this topic has (the engine never creates a journal to count); None hides the
    field when the journal cannot be read (the toolbar must never end the session)."""
    try:
        return dispatcher.workspace.undo_depth(topic)
    except (StringError, OSError, sqlite3.Error):
        return None


def is_stale(session: Session, workspace: Workspace) -> bool:
    """Whether the open document changed on disk: the view's own check (watch flag or stat, then hash).
    Callers throttle it (ToolbarState.stale); a file the engine can no longer read counts as not stale."""
    view: DocumentView | None = session.document
    if view is None:
        return False
    try:
        return view.is_stale(workspace)
    except (StringError, OSError):
        return False


def short_path(path: str, root: Path) -> str:
    """A cwd shown relative to the workspace (`./sub`), or with `~` for the home folder."""
    try:
        rel = Path(path).relative_to(root)
        return "./" if rel.as_posix() == "." else f"./{rel.as_posix()}"
    except ValueError:
        home = os.path.expanduser("~")
        return "~" + path[len(home) :] if path.startswith(home + os.sep) else path


#: The key hints at the toolbar's end, longest first: the first that fits is shown (none when none fits).
KEY_HINTS = ("Alt-Enter newline · Ctrl-D quit", "Alt-Enter newline", "")


def toolbar_fragments(
    state: ToolbarState, session: Session, root: Path, workspace: Workspace, width: int = 80
) -> list[tuple[str, str]]:
    """Style-tagged text for prompt_toolkit's bottom toolbar, fitted to `width` columns: the key hints shorten,
    then go; the separators narrow; a long document or folder keeps its end (`…/deep/name.md`)."""
    for hints in KEY_HINTS:
        for sep in ("  │  ", " │ "):
            parts = _fragments(state, session, root, workspace, sep, hints)
            if _length(parts) <= width:
                return parts
    return _shorten(parts, width)


def _length(parts: list[tuple[str, str]]) -> int:
    return sum(len(text) for _style, text in parts)


def _shorten(parts: list[tuple[str, str]], width: int) -> list[tuple[str, str]]:
    """Cut the longer path fragment from its start (`…` + its end), a character at a time, until the bar fits:
    the document and the shell's folder end up about as long as each other."""
    parts = list(parts)
    while _length(parts) > width:
        paths = [i for i, (style, text) in enumerate(parts) if style == "class:toolbar.doc" and len(text) > 8]
        if not paths:
            return parts
        i = max(paths, key=lambda k: len(parts[k][1]))
        style, text = parts[i]
        parts[i] = (style, "…" + text.removeprefix("…")[1:])
    return parts


def _fragments(
    state: ToolbarState, session: Session, root: Path, workspace: Workspace, sep_text: str, hints: str
) -> list[tuple[str, str]]:
    parts: list[tuple[str, str]] = [("class:toolbar.topic", f" {state.topic} ")]
    sep = ("class:toolbar.sep", sep_text)
    parts.append(sep)
    if state.document:
        doc = state.document + (f"#{state.block}" if state.block else "")
        parts.append(("class:toolbar.doc", doc))
        if state.stale(session, workspace):
            parts.append(("class:toolbar.stale", " (stale: /refresh)"))
    else:
        parts.append(("class:toolbar.dim", "no document"))
    if state.bash_cwd or state.bash_exit is not None:
        parts.append(sep)
        parts.append(("class:toolbar.dim", "bash "))
        parts.append(("class:toolbar.doc", short_path(state.bash_cwd, root) if state.bash_cwd else "?"))
        if state.bash_exit is not None:
            style = "class:toolbar.ok" if state.bash_exit == 0 else "class:toolbar.fail"
            parts.append((style, f" exit {state.bash_exit}"))
    if state.undo_depth is not None:
        parts.append(sep)
        parts.append(("class:toolbar.dim", f"undo {state.undo_depth}"))
    read_only = workspace.state.read_only  # degraded mode (state.py): changes are refused until it clears
    if read_only is not None:
        parts.append(sep)
        parts.append(("class:toolbar.fail", f"read-only: {read_only}"))
    if hints:
        parts.append(sep)
        parts.append(("class:toolbar.dim", hints))
    return parts
