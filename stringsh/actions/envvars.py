"""`$VAR` in action definitions: resolved from per-call context, the env store (`/set $VAR`), then the process
variables the page may use: for a trusted workspace's page what the shell's environment rule passes
(`Workspace.page_environment`), for any other page none.

Only author text (target, headers, body template, field defaults) is resolved; caller values never are. A reply
shows the URL as sent with each `$NAME` written where its value went (run.py), never the value.
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
    #: The process variables this page may use (none unless the caller says: an untrusted or remote page).
    environ: Mapping[str, str] = field(default_factory=dict)
    #: Why a variable of stringsh's environment is not among `environ`: said when one is left unresolved.
    environ_note: str = ""
    #: Values substituted so far: masked in whatever the action returns.
    used: list[str] = field(default_factory=list)

    def lookup(self, name: str) -> str | None:
        if name in self.extra:
            return self.extra[name]
        value = self.store.get(name, self.scope)
        return self.environ.get(name) if value is None else value

    def resolve(self, text: str) -> str:
        def replace(match: re.Match[str]) -> str:
            value = self.lookup(match.group(1))
            if value is None:
                return match.group(0)
            self.used.append(value)
            return value

        return REFERENCE.sub(replace, text)

    def withheld(self, names: list[str]) -> list[str]:
        """Those of `names` that stringsh's environment holds but this page may not use."""
        return [name for name in names if name in os.environ and name not in self.environ]


def unresolved_names(*texts: str) -> list[str]:
    names: dict[str, None] = {}
    for text in texts:
        for match in UNRESOLVED.finditer(text):
            names.setdefault(match.group(1), None)
    return list(names)


def unresolved_error(names: list[str], *, context: str = "", action_id: str | None = None,
                     withheld: list[str] | None = None, note: str = "") -> StringError:
    """INVALID_PAYLOAD naming the unset variables, with the `/set` lines that fix it; `withheld` are those
    stringsh's environment holds but the page may not use, and `note` says why."""
    plural = "s" if len(names) > 1 else ""
    listing = "\n".join(f"  ${name}" for name in names)
    fix = "\n".join(f'  /set ${name} = "..."' for name in names)
    them = "them" if plural else "it"
    message = f"Unresolved environment variable{plural}{context}:\n{listing}\n\nSet {them}:\n{fix}"
    if action_id:
        message += f"\nOr pass the field explicitly: /act.{action_id} --<field> <value>"
    if withheld and note:
        message += f"\n{', '.join(f'${name}' for name in withheld)}: in stringsh's environment, not used: {note}"
    return StringError("INVALID_PAYLOAD", message)
