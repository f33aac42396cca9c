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
from dataclasses import dataclass, field, replace
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


#: The key hints at the toolbar's end, longest first.
KEY_HINTS = ("Alt-Enter newline · Ctrl-D quit", "Alt-Enter newline", "")


@dataclass(frozen=True)
class Form:
    """How much the bar shows of each field; `STEPS` takes it down a step at a time until the bar fits."""

    hints: str = KEY_HINTS[0]
    sep: str = "  │  "
    stale: str = " (stale: /refresh)"
    shorten: bool = False
    bash_label: bool = True
    read_only_why: bool = True
    cwd: bool = True
    no_document: bool = True
    bash: bool = True


#: How the bar makes room, the least important first (each step keeps the ones before it): the key hints shorten,
#: then go; the separators narrow; the stale mark shortens; long paths keep their ends (`…/deep/name.md`); the
#: `bash` label goes, then `no document`, the shell's folder (its exit status stays), why the workspace is
#: read-only, and last the shell's field. The topic, the open document (its end), the stale mark, `read-only` and
#: the undo depth stay.
STEPS: tuple[dict[str, object], ...] = (
    {},
    {"hints": KEY_HINTS[1]},
    {"hints": KEY_HINTS[2]},
    {"sep": " │ "},
    {"stale": " (stale)"},
    {"shorten": True},
    {"bash_label": False},
    {"no_document": False},
    {"cwd": False},
    {"read_only_why": False},
    {"bash": False},
)


def toolbar_fragments(
    state: ToolbarState, session: Session, root: Path, workspace: Workspace, width: int = 80
) -> list[tuple[str, str]]:
    """Style-tagged text for prompt_toolkit's bottom toolbar, laid out for `width` columns (`STEPS`). Fields are
    joined by separators, so a field that goes takes its separator with it: never a dangling `│`. Narrower than
    the topic and the undo depth, the bar is cut at its end with `…`."""
    form = Form()
    for step in STEPS:
        form = replace(form, **step)  # type: ignore[arg-type]
        parts = _fragments(state, session, root, workspace, form)
        if form.shorten:
            parts = _shorten(parts, width)
        if _length(parts) <= width:
            return parts
    return _cut(parts, width)


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


def _cut(parts: list[tuple[str, str]], width: int) -> list[tuple[str, str]]:
    """The whole fields that fit in `width` columns (a terminal narrower than any layout): the bar ends with a
    field, never a separator or part of a field."""
    kept: list[tuple[str, str]] = []
    field: list[tuple[str, str]] = []
    room = width
    for style, text in [*parts, ("class:toolbar.sep", "")]:
        if style == "class:toolbar.sep" or not kept:  # a field ends here (the topic is the first)
            used = _length(field)
            if used > room:
                break
            kept.extend(field)
            room -= used
            field = []
        field.append((style, text))
    return kept or [(style, text[:width]) for style, text in parts[:1]]


def _spaced(parts: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The parts with a space between each two (its own fragment, so a path keeps its style and its length)."""
    spaced = parts[:1]
    for part in parts[1:]:
        spaced.extend([("class:toolbar.dim", " "), part])
    return spaced


def _fragments(
    state: ToolbarState, session: Session, root: Path, workspace: Workspace, form: Form
) -> list[tuple[str, str]]:
    """The bar in `form`: its fields, each a list of fragments, joined by separators."""
    fields: list[list[tuple[str, str]]] = []
    if state.document:
        doc = [("class:toolbar.doc", state.document + (f"#{state.block}" if state.block else ""))]
        if state.stale(session, workspace):
            doc.append(("class:toolbar.stale", form.stale))
        fields.append(doc)
    elif form.no_document:
        fields.append([("class:toolbar.dim", "no document")])
    if form.bash and (state.bash_cwd or state.bash_exit is not None):
        bash: list[tuple[str, str]] = [("class:toolbar.dim", "bash")] if form.bash_label else []
        if form.cwd:
            bash.append(("class:toolbar.doc", short_path(state.bash_cwd, root) if state.bash_cwd else "?"))
        if state.bash_exit is not None:
            style = "class:toolbar.ok" if state.bash_exit == 0 else "class:toolbar.fail"
            bash.append((style, f"exit {state.bash_exit}"))
        if bash and bash[-1][0] != "class:toolbar.dim":  # the label alone says nothing
            fields.append(_spaced(bash))
    if state.undo_depth is not None:
        fields.append([("class:toolbar.dim", f"undo {state.undo_depth}")])
    read_only = workspace.state.read_only  # degraded mode (state.py): changes are refused until it clears
    if read_only is not None:
        fields.append([("class:toolbar.fail", f"read-only: {read_only}" if form.read_only_why else "read-only")])
    if form.hints:
        fields.append([("class:toolbar.dim", form.hints)])
    parts: list[tuple[str, str]] = [("class:toolbar.topic", f" {state.topic} ")]
    for field_parts in fields:
        parts.append(("class:toolbar.sep", form.sep))
        parts.extend(field_parts)
    return parts
