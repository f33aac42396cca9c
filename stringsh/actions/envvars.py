"""`$VAR` in action definitions: resolved from per-call context, the env store, then the process environment.

Only author text (target, headers, body template, field defaults) is resolved; caller values never are.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from stringsh.actions.envstore import GLOBAL, EnvStore
from stringsh.errors import StringError

REFERENCE = re.compile(r"\$([A-Za-z_]\w*)")
UNRESOLVED = re.compile(r"\$([A-Z_][A-Z0-9_]*)")


@dataclass
class EnvResolver:
    store: EnvStore
    scope: str = GLOBAL
    extra: Mapping[str, str] = field(default_factory=dict)
    use_process_env: bool = True
    #: Values substituted so far: masked in whatever the action returns.
    used: list[str] = field(default_factory=list)

    def lookup(self, name: str) -> str | None:
        if name in self.extra:
            return self.extra[name]
        value = self.store.get(name, self.scope)
        if value is None and self.use_process_env:
            value = os.environ.get(name)
        return value

    def resolve(self, text: str) -> str:
        def replace(match: re.Match[str]) -> str:
            value = self.lookup(match.group(1))
            if value is None:
                return match.group(0)
            self.used.append(value)
            return value

        return REFERENCE.sub(replace, text)


def unresolved_names(*texts: str) -> list[str]:
    names: dict[str, None] = {}
    for text in texts:
        for match in UNRESOLVED.finditer(text):
            names.setdefault(match.group(1), None)
    return list(names)


def unresolved_error(names: list[str], *, context: str = "", action_id: str | None = None) -> StringError:
    """INVALID_PAYLOAD naming the unset variables, with the `/set` lines that fix it."""
    plural = "s" if len(names) > 1 else ""
    listing = "\n".join(f"  ${name}" for name in names)
    fix = "\n".join(f'  /set ${name} = "..."' for name in names)
    them = "them" if plural else "it"
    message = f"Unresolved environment variable{plural}{context}:\n{listing}\n\nSet {them}:\n{fix}"
    if action_id:
        message += f"\nOr pass the field explicitly: /act.{action_id} --<field> <value>"
    return StringError("INVALID_PAYLOAD", message)
