"""Per-topic state: open document and block, history, variables, seen files, bash."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported for the types only: start-up stays light
    from stringsh.render.view import DocumentView
    from stringsh.workspace.shell.session import ShellSession


@dataclass
class Session:
    topic: str
    kind: str = "tab"
    variables: dict[str, str] = field(default_factory=dict)
    #: The open document view (kept by stringsh.documents.service), None when nothing is open.
    document: DocumentView | None = None
    #: Previous document views, most recent last.
    history: list[DocumentView] = field(default_factory=list)
    #: Files this topic has read, root-relative path -> sha256, for the stale-write guard.
    seen: dict[str, str] = field(default_factory=dict)
    #: The topic's persistent shell, started on first use.
    bash: ShellSession | None = None
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
