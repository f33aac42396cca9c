"""Persistent `$VAR`s: JSON files per scope in the user's config directory, never in the workspace.

`STRINGSH_CONFIG_DIR` overrides platformdirs' `user_config_dir("stringsh")`. Files are re-read on every lookup
so two stringsh processes see each other's `/set`; writes are atomic and private (0600). Values are secrets:
replies and listings show them masked.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from stringsh.errors import StringError
from stringsh.userdirs import config_dir, exclusive, write_private

MASK = "••••••"
NAME = re.compile(r"^[A-Z_][A-Z0-9_]*$")
GLOBAL = "global"



def scope_for_topic(topic: str) -> str:
    """`app:x[:cfg]` topics have their own scope; every tab shares the global one."""
    return topic if topic.startswith("app:") else GLOBAL


def scope_chain(scope: str) -> list[str]:
    """Lookup order: the most specific scope first, global last (`app:x:cfg` → `app:x` → global)."""
    if scope == GLOBAL:
        return [GLOBAL]
    parts = scope.split(":")
    return [":".join(parts[:n]) for n in range(len(parts), 1, -1)] + [GLOBAL]


def scope_label(scope: str) -> str:
    if scope == GLOBAL:
        return "global"
    return "app" if scope.count(":") == 1 else "app:cfg"


class EnvStore:
    def __init__(self, directory: Path | None = None) -> None:
        self.directory = directory or config_dir()

    def file(self, scope: str) -> Path:
        if scope == GLOBAL:
            return self.directory / "env.json"
        return self.directory.joinpath("apps", *scope.split(":")[1:], "env.json")

    def _load(self, scope: str) -> dict[str, str]:
        try:
            data = json.loads(self.file(scope).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            raise StringError("LOAD_ERROR", f"Cannot read the variable store {self.file(scope)}: {exc}") from None
        env = data.get("env", {}) if isinstance(data, dict) else {}
        return {str(k): str(v) for k, v in env.items()} if isinstance(env, dict) else {}

    def get(self, name: str, scope: str = GLOBAL) -> str | None:
        for candidate in scope_chain(scope):
            value = self._load(candidate).get(name)
            if value is not None:
                return value
        return None

    def items(self, scope: str = GLOBAL) -> list[tuple[str, str, str]]:
        """(name, value, scope) visible from `scope`; a name set in a closer scope hides the wider one."""
        seen: dict[str, tuple[str, str, str]] = {}
        for candidate in scope_chain(scope):
            for name, value in sorted(self._load(candidate).items()):
                seen.setdefault(name, (name, value, candidate))
        return list(seen.values())

    def set(self, name: str, value: str, scope: str = GLOBAL) -> None:
        if not NAME.match(name):
            raise StringError(
                "INVALID_PAYLOAD", f"Invalid variable name: ${name}", "Use upper-case letters, digits and _."
            )
        path = self.file(scope)
        with exclusive(path.parent / ".env.lock"):  # two processes setting at once: neither value is lost
            env = self._load(scope)
            env[name] = value
            write_private(path, json.dumps({"env": env}, indent=2, sort_keys=True).encode("utf-8"))

    def secrets(self, scope: str = GLOBAL) -> list[str]:
        """Every stored value worth masking in output (very short values would mask ordinary text)."""
        return [value for _, value, _ in self.items(scope) if len(value) >= 4]


def mask_values(text: str, values: list[str]) -> str:
    """Replace every occurrence of a secret value, longest first, by the mask."""
    for value in sorted(set(values), key=len, reverse=True):
        if value and value in text:
            text = text.replace(value, MASK)
    return text


def echo(name: str, scope: str) -> str:
    return f'${name} = "{MASK}" ({scope_label(scope)})'
