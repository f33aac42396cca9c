"""Where completion candidates and toolbar state come from, read defensively.

Colleagues' pieces (engine listing, block index, shortcuts, actions, journal) land at different times; each
reader here returns nothing rather than failing when its piece or attribute is missing, so the REPL degrades
to fewer candidates instead of breaking while the user types.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

#: The engine's own folder: never offered.
ENGINE_DIR = ".stringsh"
#: Cap on what one listing may offer, so a huge folder cannot stall the menu.
MAX_ENTRIES = 2000
#: Attribute names tried, in order, for values colleagues may expose under different names.
BLOCK_ATTRS = ("block_ids", "blocks")
SHORTCUT_ATTRS = ("shortcuts", "auto_shortcuts", "value_shortcuts")
ACTION_ATTRS = ("actions",)


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
        self._matcher: Any = None

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
            (cmd.name, cmd.summary, cmd.syntax) for cmd in list(REGISTRY.values()) if not getattr(cmd, "hidden", False)
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
        workspace = self.workspace()
        if workspace is not None and hasattr(workspace, "list_dir"):
            try:
                listed = workspace.list_dir(rel_dir or ".")
            except Exception:
                return []
            return entries_of(listed)[:MAX_ENTRIES]
        return self._fallback_list(rel_dir)

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

    def _fallback_list(self, rel_dir: str) -> list[tuple[str, bool]]:
        """Without the engine: stay under the root, skip `.stringsh`, and hide what the secret rules deny."""
        parts = [part for part in rel_dir.split("/") if part and part != "."]
        if rel_dir.startswith("/") or ".." in parts or ENGINE_DIR in parts or self._denied("/".join(parts)):
            return []
        folder = self.root.joinpath(*parts)
        out: list[tuple[str, bool]] = []
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    rel = "/".join([*parts, entry.name])
                    if entry.name == ENGINE_DIR or self._denied(rel):
                        continue
                    is_dir = entry.is_dir()
                    if entry.is_symlink() and not self._inside(entry.path):
                        continue
                    out.append((entry.name, is_dir))
                    if len(out) >= MAX_ENTRIES:
                        break
        except OSError:
            return []
        return out

    def _inside(self, path: str) -> bool:
        real = Path(os.path.realpath(path))
        root = self.root.resolve()
        return real == root or root in real.parents

    def _denied(self, rel: str) -> bool:
        if not rel:
            return False
        if self._matcher is None:
            self._matcher = default_matcher(self.root)
        if self._matcher is False:
            return any(part.startswith(".") for part in rel.split("/"))
        return bool(self._matcher.denied(rel))

    # documents ------------------------------------------------------------------------------------------

    def open_path(self) -> str | None:
        document = getattr(self.session, "document", None)
        if document is None:
            return None
        path = first_attr(document, ("path", "rel", "uri"))
        return str(path) if path else None

    def blocks(self, path: str | None) -> list[str]:
        """Block ids of `path`, or of the open document when `path` is None or is the open one."""
        document = getattr(self.session, "document", None)
        if document is not None and (path is None or path == self.open_path()):
            ids = names_of(first_attr(document, BLOCK_ATTRS))
            if not ids:
                ids = names_of(first_attr(first_attr(document, ("index",)), BLOCK_ATTRS))
            if ids or path is None:
                return ids
        if path is None:
            return []
        from stringsh.repl.blocks import block_ids_of_file

        return block_ids_of_file(self, path)

    def shortcuts(self) -> list[str]:
        """`@id` names of the open document and the session (page, value and auto shortcuts)."""
        found: list[str] = []
        for owner in (getattr(self.session, "document", None), self.session):
            if owner is None:
                continue
            for attr in SHORTCUT_ATTRS:
                found.extend(names_of(getattr(owner, attr, None)))
        return list(dict.fromkeys(name.lstrip("@") for name in found))

    def actions(self) -> dict[str, Any]:
        """Action name -> action object (for its flags), from the open document."""
        document = getattr(self.session, "document", None)
        values = first_attr(document, ACTION_ATTRS) if document is not None else None
        if values is None:
            return {}
        if isinstance(values, dict):
            return {str(k): v for k, v in values.items()}
        return {name: value for name, value in zip(names_of(values), values, strict=False)}

    def action_flags(self, name: str) -> list[tuple[str, str]]:
        """(`--flag`, description) of one action's fields; short aliases too."""
        action = self.actions().get(name)
        fields = first_attr(action, ("fields", "flags", "params")) if action is not None else None
        out: list[tuple[str, str]] = []
        for field in fields.values() if isinstance(fields, dict) else fields or []:
            flag = first_attr(field, ("name", "id"))
            if not flag:
                continue
            kind = getattr(field, "type", "") or ""
            required = "required" if getattr(field, "required", False) else "optional"
            meta = " ".join(part for part in (str(kind), required, getattr(field, "description", "") or "") if part)
            out.append((f"--{flag}", meta))
            alias = first_attr(field, ("alias", "short"))
            if alias:
                out.append((f"-{str(alias).lstrip('-')}", f"--{flag}"))
        return [*out, ("--help", "show this action's flags")]

    def variables(self) -> dict[str, str]:
        return dict(getattr(self.session, "variables", {}) or {})


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


def default_matcher(root: Path) -> Any:
    """The engine's default secret matcher, or False when this build has none (then dot-files are hidden)."""
    try:
        from stringsh.workspace.policy import Policy

        matcher = Policy.default(root).matcher
        return matcher() if callable(matcher) else matcher
    except Exception:
        return False
