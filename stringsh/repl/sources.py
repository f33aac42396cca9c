"""Where completion candidates come from: the command table, the engine, and the topic's open document view.

Every reader uses the real objects (`Session`, `DocumentView` and its `DocIndex`, `Workspace`, `ShellSession`),
so a renamed field fails a test instead of quietly shrinking completion. Errors the engine reports for a path
(confinement, secrets, a missing or binary file) mean "nothing to offer" for that word.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from stringsh.documents.fileblocks import file_index
from stringsh.documents.service import DocumentService
from stringsh.documents.shortcuts import page_menus, page_shortcuts
from stringsh.errors import StringError
from stringsh.nav.menus import menu_targets
from stringsh.render.people import Links

if TYPE_CHECKING:
    from stringsh.actions.model import Action
    from stringsh.commands.table import CommandSpec
    from stringsh.dispatcher import Dispatcher
    from stringsh.render.code.index import SymbolIndex
    from stringsh.render.index import DocIndex
    from stringsh.render.view import DocumentView
    from stringsh.session import Session
    from stringsh.workspace import Workspace

#: Cap on what one listing may offer, so a huge folder cannot stall the menu.
MAX_ENTRIES = 2000
#: Names typed after `/` (the table also holds `!`, which is typed without a slash).
COMMAND_NAME = re.compile(r"^[a-z][a-z0-9_.-]*$")
#: How long a listing or file read for completion is reused (a command in between clears it at once).
CACHE_SECONDS = 5.0


def block_ids(index: DocIndex | SymbolIndex) -> list[str]:
    """The ids `#` offers, in document order: markers, explicit heading ids, distinct heading slugs (`changes-1`)."""
    return index.block_ids()


class Sources:
    """Read-only views of the dispatcher and one topic's session, each safe to call from a completion thread."""

    def __init__(self, dispatcher: Dispatcher, topic: str = "main") -> None:
        self.dispatcher = dispatcher
        self.topic = topic
        #: Listings, file indexes and menus asked of the engine since the last command. The engine audits each
        #: call, so completing while typing asks once per folder or file, not once per key; a command clears it.
        self._listings: dict[str, tuple[float, list[tuple[str, bool]]]] = {}
        self._indexes: dict[str, tuple[float, DocIndex | SymbolIndex | None]] = {}
        self._menus: tuple[float, DocumentView, dict[str, str]] | None = None
        self._lock = threading.Lock()

    def invalidate(self) -> None:
        """Forget cached listings and files: called after every command (it may have changed them)."""
        with self._lock:
            self._listings.clear()
            self._indexes.clear()
            self._menus = None

    @property
    def session(self) -> Session:
        return self.dispatcher.session(self.topic)

    @property
    def root(self) -> Path:
        return self.dispatcher.root

    @property
    def workspace(self) -> Workspace:
        return self.dispatcher.workspace

    # commands -------------------------------------------------------------------------------------------

    def command_table(self) -> Mapping[str, CommandSpec]:
        """Every command by name: the one place the REPL reads the command list from."""
        return self.dispatcher.commands

    def commands(self) -> list[tuple[str, str, str]]:
        """(name, summary, syntax) of every visible command typed after `/`, from the command table."""
        return sorted(
            (cmd.name, cmd.summary, cmd.syntax)
            for cmd in self.command_table().values()
            if not cmd.hidden and COMMAND_NAME.match(cmd.name)
        )

    # paths ----------------------------------------------------------------------------------------------

    def list_dir(self, rel_dir: str) -> list[tuple[str, bool]]:
        """(name, is_dir) of a workspace folder under the engine's rules; [] when it cannot be listed."""
        key = rel_dir.strip("/") or "."
        with self._lock:
            cached = self._listings.get(key)
        if cached is not None and time.monotonic() - cached[0] < CACHE_SECONDS:
            return cached[1]
        try:
            entries = [(e.name, e.is_dir) for e in self.workspace.list_dir(key, topic=self.topic)[:MAX_ENTRIES]]
        except (StringError, OSError, ValueError):
            entries = []  # outside the workspace, a file, a secret, an odd name: nothing to offer
        with self._lock:
            self._listings[key] = (time.monotonic(), entries)
        return entries

    def shell_folder(self) -> str | None:
        """The shell's cwd relative to the root ("" at the root or before a shell starts), None when elsewhere."""
        shell = self.session.bash
        if shell is None:
            return ""
        try:
            rel = Path(os.path.realpath(shell.cwd)).relative_to(self.root.resolve())
        except ValueError:
            return None
        return "" if rel.as_posix() == "." else rel.as_posix()

    # documents ------------------------------------------------------------------------------------------

    def view(self) -> DocumentView | None:
        """The topic's open document view."""
        document: DocumentView | None = self.session.document
        return document

    def open_path(self) -> str | None:
        view = self.view()
        return view.path if view is not None else None

    def open_index(self) -> DocIndex | None:
        """The open view's index (built when it was opened); None when nothing or no markdown is open."""
        view = self.view()
        return view.index if view is not None and view.kind == "markdown" else None

    def file_index(self, path: str) -> DocIndex | SymbolIndex | None:
        """The index of a markdown file read through the engine (its confinement and secret rules)."""
        with self._lock:
            cached = self._indexes.get(path)
        if cached is not None and time.monotonic() - cached[0] < CACHE_SECONDS:
            return cached[1]
        index = self._read_index(path)
        with self._lock:
            self._indexes[path] = (time.monotonic(), index)
        return index

    def _read_index(self, path: str) -> DocIndex | SymbolIndex | None:
        return file_index(self.workspace, self.dispatcher.documents, path, self.topic)

    def blocks(self, path: str | None) -> list[str]:
        """Block ids of `path`, or of the open document when `path` is None or names the open one."""
        if path is None or path == self.open_path():
            view = self.view()
            index = view.symbols if view is not None and view.symbols is not None else self.open_index()
        elif path.startswith("@"):
            return []
        else:
            index = self.file_index(path)
        return block_ids(index) if index is not None else []

    def shortcuts(self) -> list[tuple[str, str]]:
        """(`id`, label or target) of every `@id` `/open` accepts: page shortcuts, value shortcuts, the
        auto-shortcuts of the view's last rendering, then the entries of the page's menus (`menu.id`)."""
        view = self.view()
        index = self.open_index() if view is not None else None
        found = [(sid, label) for sid, label, _href, _line in index.shortcuts] if index is not None else []
        held = self.session.value_shortcuts  # response templates' values and `/symbols`' `@s1`, `@s2`, …
        found += [(name, value if isinstance(value, str) else ", ".join(value)) for name, value in held.items()]
        if view is None:
            return found
        found += list(view.auto_shortcuts.items())
        found += list(self.menu_entries(view).items())
        unique: dict[str, str] = {}
        for name, label in found:
            unique.setdefault(name, label)  # the first table that has an id wins, as in `/open`
        return list(unique.items())

    def links(self) -> Links | None:
        """Where the open document's links lead, for people's rendering: its shortcuts, as `/open @id` resolves
        them, and its reference definitions."""
        view = self.view()
        if view is None or view.kind != "markdown":
            return None
        return Links({**view.auto_shortcuts, **page_shortcuts(view)}, view.index.references)

    def menu_entries(self, view: DocumentView) -> dict[str, str]:
        """`menu.id` -> target of the page's menus, their files read through the engine (cached like listings)."""
        if view.kind != "markdown" or not view.index.menus:
            return {}
        with self._lock:
            cached = self._menus
        if cached is not None and cached[1] is view and time.monotonic() - cached[0] < CACHE_SECONDS:
            return cached[2]
        targets = menu_targets(page_menus(DocumentService(self.dispatcher, self.session), view))
        with self._lock:
            self._menus = (time.monotonic(), view, targets)
        return targets

    def menus(self) -> list[tuple[str, str]]:
        """(name, path) of the open page's `[!nav:name](path)` menus."""
        index = self.open_index()
        return [(name, path) for name, path, _line in index.menus] if index is not None else []

    def actions(self) -> dict[str, Action]:
        """Action id -> action of the open document: exactly the actions `/act` runs."""
        from stringsh.documents.actions import page_actions  # the action parser loads when actions are completed

        view = self.view()
        return {action.id: action for action in page_actions(view)} if view is not None else {}

    def action_flags(self, name: str) -> list[tuple[str, str]]:
        """(`--flag`, description) of one action's fields, with their short aliases."""
        action = self.actions().get(name)
        out: list[tuple[str, str]] = []
        for field in action.fields if action is not None else []:
            required = "required" if field.required else "optional"
            meta = " ".join(part for part in (field.type, required, field.description) if part)
            out.append((f"--{field.name}", meta))
            if field.short:
                out.append((f"-{field.short.lstrip('-')}", f"--{field.name}"))
        return [*out, ("--help", "show the action's flags")]

    def variables(self) -> dict[str, str]:
        return dict(self.session.variables)
