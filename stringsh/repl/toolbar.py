"""The bottom toolbar: topic, open document and block, stale mark, bash cwd and last exit status, undo depth.

State is read with getattr from the session and dispatcher (colleagues add attributes as their pieces land)
and, for the shell, from the last bash reply the REPL saw. Rendering only formats a snapshot, so a redraw never
touches the disk or the journal.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stringsh.repl.reply import BASH_MESSAGE, split_reply
from stringsh.repl.sources import first_attr

EXIT_ATTRS = ("last_exit", "exit_code", "last_status", "returncode", "rc")
STALE_ATTRS = ("stale", "is_stale")
BLOCK_ATTRS = ("block", "block_id")
#: Seconds between two stale checks of the open document (each is a stat, and a hash when the stat changed).
STALE_EVERY = 1.0
JOURNAL_FILE = ".stringsh/journal.db"
#: Journal rows read to count undo steps (newest first, all topics).
UNDO_SCAN = 1000


@dataclass
class ToolbarState:
    """What the toolbar shows; `refresh` updates it after each command, on the command thread."""

    topic: str = "main"
    document: str | None = None
    block: str | None = None
    bash_cwd: str | None = None
    bash_exit: int | None = None
    undo_depth: int | None = None
    _stale_for: Any = field(default=None, repr=False)
    _stale_at: float = field(default=0.0, repr=False)
    _stale: bool = field(default=False, repr=False)

    def stale(self, session: Any, workspace: Any) -> bool:
        """The stale mark, checked at most once a second: the toolbar is redrawn on every key."""
        document = getattr(session, "document", None)
        if document is None:
            return False
        now = time.monotonic()
        if self._stale_for is not document:
            self._stale_for, self._stale_at, self._stale = document, now, is_stale(session, workspace)
        elif not self._stale and now - self._stale_at >= STALE_EVERY:
            # once stale, a view stays stale until /refresh or /open replaces it: no re-hashing of a big file
            self._stale_at, self._stale = now, is_stale(session, workspace)
        return self._stale

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

    def refresh(self, dispatcher: Any, session: Any) -> None:
        self.topic = getattr(session, "topic", "main")
        document = getattr(session, "document", None)
        path = first_attr(document, ("path", "rel", "uri")) if document is not None else None
        self.document = str(path) if path else (None if document is None else str(document))
        block = first_attr(document, BLOCK_ATTRS) if document is not None else None
        self.block = str(block).lstrip("#") if block else None
        bash = getattr(session, "bash", None)
        if bash is not None:
            self.bash_cwd = str(getattr(bash, "cwd", None) or self.bash_cwd or "") or None
            rc = first_attr(bash, EXIT_ATTRS)
            if isinstance(rc, int):
                self.bash_exit = rc
        self.undo_depth = undo_depth(dispatcher, self.topic)


def undo_depth(dispatcher: Any, topic: str) -> int | None:
    """How many `/undo` steps this topic has, when the engine can say; None hides the field.

    Counted from the change journal (applied, done, not yet reverted: what `/undo` walks back through). An absent
    journal means nothing to undo; it is not created just to be counted.
    """
    if not hasattr(type(dispatcher), "workspace") and "workspace" not in vars(dispatcher):
        return None
    try:
        workspace = dispatcher.workspace
        direct = getattr(workspace, "undo_depth", None)
        if callable(direct):
            return int(direct(topic))
        if not (Path(dispatcher.root) / JOURNAL_FILE).exists():
            return 0
        rows = workspace.history(UNDO_SCAN)
    except Exception:
        return None
    return sum(
        1
        for row in rows
        if getattr(row, "topic", None) == topic
        and getattr(row, "kind", None) == "apply"
        and getattr(row, "state", None) == "done"
        and getattr(row, "reverted_by", 0) is None
    )


def is_stale(session: Any, workspace: Any = None) -> bool:
    """Whether the open document changed on disk: the view's own check (stat, then hash) when it has one, else
    the watcher's flag or a `stale` attribute. Callers throttle it (ToolbarState.stale)."""
    document = getattr(session, "document", None)
    if document is None:
        return False
    check = getattr(document, "is_stale", None)
    if callable(check) and workspace is not None:
        try:
            return bool(check(workspace))
        except Exception:
            return False
    flag = getattr(getattr(getattr(document, "watcher", None), "changed", None), "is_set", None)
    if callable(flag):
        return bool(flag())
    for owner in (document, session):
        value = first_attr(owner, STALE_ATTRS)
        if isinstance(value, bool) and value:
            return True
    return False


def short_path(path: str, root: Path) -> str:
    """A cwd shown relative to the workspace (`./sub`), or with `~` for the home folder."""
    try:
        rel = Path(path).relative_to(root)
        return "./" if rel.as_posix() == "." else f"./{rel.as_posix()}"
    except ValueError:
        home = os.path.expanduser("~")
        return "~" + path[len(home) :] if path.startswith(home + os.sep) else path


def toolbar_fragments(state: ToolbarState, session: Any, root: Path, workspace: Any = None) -> list[tuple[str, str]]:
    """Style-tagged text for prompt_toolkit's bottom toolbar."""
    parts: list[tuple[str, str]] = [("class:toolbar.topic", f" {state.topic} ")]
    sep = ("class:toolbar.sep", "  │  ")
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
    parts.append(sep)
    parts.append(("class:toolbar.dim", "Alt-Enter newline · Ctrl-D quit"))
    return parts
