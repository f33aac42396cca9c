"""Where completion candidates and toolbar state come from, read defensively.

Colleagues' pieces (engine listing, block index, shortcuts, actions, journal) land at different times; each
reader here returns nothing rather than failing when its piece or attribute is missing, so the REPL degrades
to fewer candidates instead of breaking while the user types.
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from stringsh.repl.docfacts import EMPTY, MAX_INDEX_CHARS, DocFacts, facts_for

#: The engine's own folder: never offered.
ENGINE_DIR = ".stringsh"
#: Cap on what one listing may offer, so a huge folder cannot stall the menu.
MAX_ENTRIES = 2000
#: Names typed after `/` (the registry also holds `!`, which is typed without a slash).
COMMAND_NAME = re.compile(r"^[a-z][a-z0-9_.-]*$")
#: How long a listing or file read for completion is reused (a command in between clears it at once).
CACHE_SECONDS = 5.0
#: Attribute names tried, in order, for values colleagues may expose under different names.
PATH_ATTRS = ("path", "rel", "uri")
TEXT_ATTRS = ("text", "source")
#: Session-level shortcuts (value shortcuts set by commands); page shortcuts come from the document text.
SHORTCUT_ATTRS = ("shortcuts", "value_shortcuts", "auto_shortcuts")


def first_attr(obj: Any, names: Iterable[str]) -> Any:
    for name in names:
        value = getattr(obj, name, None)
        if value is not None:
            return value
    return None


def names_of(values: Any) -> list[str]:
    """Ids from a dict (keys), or a list of strings / objects with `id` or `name`."""
    if values is None:
        return []
    if isinstance(values, dict):
        return [str(key) for key in values]
    out = []
    try:
        for value in values:
            name = value if isinstance(value, str) else first_attr(value, ("id", "name"))
            if name:
                out.append(str(name))
    except TypeError:
        return []
    return out


class Sources:
    """Read-only views of the dispatcher and one topic's session, each safe to call from a completion thread."""

    def __init__(self, dispatcher: Any, topic: str = "main") -> None:
        self.dispatcher = dispatcher
        self.topic = topic
        #: Listings and file facts asked of the engine since the last command. The engine audits each call, so
        #: completing while typing asks once per folder or file, not once per key; a command clears it.
        self._listings: dict[str, tuple[float, list[tuple[str, bool]]]] = {}
        self._facts: dict[str, tuple[float, DocFacts]] = {}
        self._lock = threading.Lock()

    def invalidate(self) -> None:
        """Forget cached listings and files: called after every command (it may have changed them)."""
        with self._lock:
            self._listings.clear()
            self._facts.clear()

    @property
    def session(self) -> Any:
        return self.dispatcher.session(self.topic)

    @property
    def root(self) -> Path:
        return Path(self.dispatcher.root)

    # commands -------------------------------------------------------------------------------------------

    def commands(self) -> list[tuple[str, str, str]]:
        """(name, summary, syntax) of every visible command, from the registry."""
        from stringsh.commands.registry import REGISTRY

        return sorted(
            (cmd.name, cmd.summary, cmd.syntax)
            for cmd in list(REGISTRY.values())
            if not getattr(cmd, "hidden", False) and COMMAND_NAME.match(cmd.name)
        )

    # paths ----------------------------------------------------------------------------------------------

    def workspace(self) -> Any:
        """The engine when this build has it (`dispatcher.workspace`), else None."""
        if not hasattr(type(self.dispatcher), "workspace") and "workspace" not in vars(self.dispatcher):
            return None
        try:
            return self.dispatcher.workspace
        except Exception:
            return None

    def list_dir(self, rel_dir: str) -> list[tuple[str, bool]]:
        """(name, is_dir) of a workspace folder under the engine's rules; [] when it cannot be listed."""
        key = rel_dir.strip("/") or "."
        with self._lock:
            cached = self._listings.get(key)
        if cached is not None and time.monotonic() - cached[0] < CACHE_SECONDS:
            return cached[1]
        entries = self._list_uncached(key)
        with self._lock:
            self._listings[key] = (time.monotonic(), entries)
        return entries

    def _list_uncached(self, rel_dir: str) -> list[tuple[str, bool]]:
        workspace = self.workspace()
        if workspace is not None and hasattr(workspace, "list_dir"):
            try:
                listed = call_with_topic(workspace.list_dir, rel_dir, self.topic)
            except Exception:
                return []
            return entries_of(listed)[:MAX_ENTRIES]
        return []  # no engine in this build: offer nothing rather than bypass its rules

    def shell_folder(self) -> str | None:
        """The shell's cwd relative to the root ("" at the root), None when it is elsewhere."""
        cwd = getattr(getattr(self.session, "bash", None), "cwd", None)
        if not cwd:
            return ""
        try:
            rel = Path(os.path.realpath(cwd)).relative_to(self.root.resolve())
        except ValueError:
            return None
        return "" if rel.as_posix() == "." else rel.as_posix()

    # documents ------------------------------------------------------------------------------------------

    def open_path(self) -> str | None:
        document = getattr(self.session, "document", None)
        if document is None:
            return None
        path = first_attr(document, PATH_ATTRS)
        return str(path) if path else None

    def open_facts(self) -> DocFacts:
        """Facts of the open document: from the text it holds in memory, else from its file."""
        document = getattr(self.session, "document", None)
        if document is None:
            return EMPTY
        for owner in (document, getattr(document, "doc", None), getattr(document, "document", None)):
            text = first_attr(owner, TEXT_ATTRS) if owner is not None else None
            if isinstance(text, str):
                return facts_for(text, getattr(owner, "sha256", None) or None)
        path = self.open_path()
        return self.file_facts(path) if path else EMPTY

    def file_facts(self, path: str) -> DocFacts:
        with self._lock:
            cached = self._facts.get(path)
        if cached is not None and time.monotonic() - cached[0] < CACHE_SECONDS:
            return cached[1]
        read = self.read_text(path)
        facts = facts_for(*read) if read is not None else EMPTY
        with self._lock:
            self._facts[path] = (time.monotonic(), facts)
        return facts

    def read_text(self, path: str) -> tuple[str, Any] | None:
        """A workspace file's text and a cache key, read through the engine (its confinement and secret rules)."""
        workspace = self.workspace()
        reader = getattr(workspace, "read_text", None) if workspace is not None else None
        if reader is not None:
            try:
                got = call_with_topic(reader, path, self.topic)
            except Exception:
                return None
            text = getattr(got, "text", got)
            key = (path, getattr(got, "sha256", None)) if getattr(got, "sha256", None) else None
            return (text, key) if isinstance(text, str) and len(text) <= MAX_INDEX_CHARS else None
        return None

    def blocks(self, path: str | None) -> list[str]:
        """Block ids of `path`, or of the open document when `path` is None or names the open one."""
        if path is None or path == self.open_path():
            return self.open_facts().block_ids
        if path.startswith("@"):
            return []
        return self.file_facts(path).block_ids

    def shortcuts(self) -> list[tuple[str, str]]:
        """(`id`, label or href) of the open page's shortcuts and auto-shortcuts, then the session's own."""
        found = list(self.open_facts().shortcuts)
        for owner in (getattr(self.session, "document", None), self.session):
            for attr in SHORTCUT_ATTRS:
                values = getattr(owner, attr, None) if owner is not None else None
                if isinstance(values, dict):
                    found += [(str(k), str(v)) for k, v in values.items()]
                else:
                    found += [(name, "") for name in names_of(values)]
        unique: dict[str, str] = {}
        for name, label in found:
            unique.setdefault(name.lstrip("@"), label)
        return list(unique.items())

    def menus(self) -> list[tuple[str, str]]:
        """(name, path) of the open page's `[!nav:name](path)` menus."""
        return list(self.open_facts().menus)

    def actions(self) -> dict[str, Any]:
        """Action id -> action of the open document."""
        return {str(getattr(action, "id", "")): action for action in self.open_facts().actions}

    def action_flags(self, name: str) -> list[tuple[str, str]]:
        """(`--flag`, description) of one action's fields, with their short aliases."""
        action = self.actions().get(name)
        out: list[tuple[str, str]] = []
        for field in getattr(action, "fields", None) or []:
            flag = getattr(field, "name", None)
            if not flag:
                continue
            required = "required" if getattr(field, "required", False) else "optional"
            meta = " ".join(p for p in (getattr(field, "type", ""), required, getattr(field, "description", "")) if p)
            out.append((f"--{flag}", meta))
            short = getattr(field, "short", None)
            if short:
                out.append((f"-{str(short).lstrip('-')}", f"--{flag}"))
        return [*out, ("--help", "show the action's flags")]

    def variables(self) -> dict[str, str]:
        return dict(getattr(self.session, "variables", {}) or {})


def call_with_topic(method: Any, path: str, topic: str) -> Any:
    """Engine reads take the topic for their audit record; older signatures do not."""
    try:
        return method(path, topic=topic)
    except TypeError:
        return method(path)


def entries_of(listed: Any) -> list[tuple[str, bool]]:
    """(name, is_dir) from whatever the engine's `list_dir` returns: entries, or (rel, entries)."""
    if (
        isinstance(listed, tuple)
        and len(listed) == 2
        and isinstance(listed[0], str)
        and not isinstance(listed[1], bool)
    ):
        listed = listed[1]
    listed = first_attr(listed, ("entries",)) or listed
    out: list[tuple[str, bool]] = []
    for entry in listed or []:
        if isinstance(entry, tuple):
            name, is_dir = entry[0], bool(entry[1])
        else:
            name, is_dir = getattr(entry, "name", None), bool(getattr(entry, "is_dir", False))
        if name and name != ENGINE_DIR:
            out.append((str(name), is_dir))
    return out
