"""Per-topic state: open document and block, history, variables, seen files, bash."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported for the types only: start-up stays light
    from stringsh.actions.template import ShortcutValue
    from stringsh.protocol.operator_model import Confirmer
    from stringsh.render.document import Document
    from stringsh.render.view import DocumentView
    from stringsh.workspace import ShellSession


class Session:
    """One topic's state. A plain class, not a dataclass: `-c /ls` makes one, and dataclasses cost start-up."""

    def __init__(
        self,
        topic: str,
        kind: str = "tab",
        variables: dict[str, str] | None = None,
        *,
        bash_mode: bool = False,
    ) -> None:
        self.topic = topic
        self.kind = kind
        self.variables: dict[str, str] = {} if variables is None else variables
        #: The open document view (kept by stringsh.documents.service), None when nothing is open.
        self.document: DocumentView | None = None
        #: The folder `/open <folder>` made the topic's (root-relative), until a document opens or /close.
        self.cwd_override: str | None = None
        #: Menu files whose entries a page already showed unfolded in this topic (String: first view only).
        self.seen_navs: set[str] = set()
        #: Previous document views, most recent last.
        self.history: list[DocumentView] = []
        #: Value shortcuts `@name` that response templates registered (`{@name} = …`); cleared by /close.
        self.value_shortcuts: dict[str, ShortcutValue] = {}
        #: Files this topic has read, root-relative path -> sha256, for the stale-write guard.
        self.seen: dict[str, str] = {}
        #: What this topic last read or wrote of a file, path -> (the `seen` hash then, its text or document): the
        #: baseline a block or line edit is held against (stringsh.documents.partguard).
        self.known: dict[str, tuple[str, str | Document]] = {}
        #: The topic's persistent shell, started on first use (or before it: Dispatcher.warm_shells).
        self.bash: ShellSession | None = None
        #: Held while the shell is made, started or closed (workspace/ops/shell.py), never while a command runs.
        self.shell_lock = threading.Lock()
        #: The topic is gone (Dispatcher.end_topic): no shell starts for it any more.
        self.ended = False
        #: True while the plain loop's `/bash` mode sends every line to the shell.
        self.bash_mode = bash_mode
        #: How an OPERATOR_CMD block's mutation is confirmed in this topic: the REPL sets one that asks the person
        #: at the prompt; None means the policy's `[operator] confirm` on the controlling terminal.
        self.operator_confirm: Confirmer | None = None

    def exported_variables(self) -> dict[str, str]:
        """Session variables that reach shells: all but names starting with `_`."""
        return {k: v for k, v in self.variables.items() if not k.startswith("_")}

    def close_shell(self) -> None:
        with self.shell_lock:
            if self.bash is not None:
                self.bash.close()
                self.bash = None

    def close(self) -> None:
        """What `/close` clears: document, history, variables, value shortcuts and the shell; the topic stays."""
        self.document = None
        self.cwd_override = None
        self.history.clear()
        self.variables.clear()
        self.value_shortcuts.clear()
        self.close_shell()
