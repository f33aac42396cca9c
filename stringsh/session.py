"""Per-topic state: open document and block, history, variables, seen files, bash."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Session:
    topic: str
    kind: str = "tab"
    variables: dict[str, str] = field(default_factory=dict)
    #: The open document view (set by the documents commands), None when nothing is open.
    document: Any = None
    #: Previous document views, most recent last.
    history: list[Any] = field(default_factory=list)
    #: Files this topic has read, path -> fingerprint, for the stale-write guard.
    seen: dict[str, Any] = field(default_factory=dict)
    #: The topic's persistent shell, started on first use.
    bash: Any = None
    #: True while the plain loop's `/bash` mode sends every line to the shell.
    bash_mode: bool = False

    def exported_variables(self) -> dict[str, str]:
        """Session variables that reach shells: all but names starting with `_`."""
        return {k: v for k, v in self.variables.items() if not k.startswith("_")}

    def close_shell(self) -> None:
        if self.bash is not None:
            self.bash.close()
            self.bash = None

    def close(self) -> None:
        """What `/close` clears: the document, its history, variables and the shell; the topic stays."""
        self.document = None
        self.history.clear()
        self.variables.clear()
        self.close_shell()
