"""The parsed command line, in a module of its own: the front ends read it, and they sit below `cli.py`, which
parses it and picks one of them."""

from __future__ import annotations

import sys
from pathlib import Path


class Options:
    """The parsed command line, whichever parser read it."""

    def __init__(self) -> None:
        self.root: str | None = None
        self.policy: str | None = None
        #: `--client NAME`: whose undo history the run's changes join (workspace/clients.py).
        self.client: str | None = None
        self.no_sandbox = False
        self.command: str | None = None
        self.plain = False
        self.no_echo = False
        self.color = False
        self.mode: str | None = None
        self.files: list[str] = []
        self.keep_going = False
        self.json = False
        self.revoke = False
        self.status = False
        self.audit_command: str | None = None
        self.lines = 10
        self.http: str | None = None
        self.host: str | None = None
        self.log_json = False
        self.max_sessions: int | None = None
        self.header_timeout: float | None = None
        self.idle_timeout: float | None = None
        #: `stringsh web --port N` (stringsh/web/).
        self.port: int | None = None

    def workspace_folder(self) -> Path | None:
        """`--root`, else the current folder; None (after saying why on stderr) when it is not a folder, or when
        the current folder was removed after the shell went into it."""
        try:
            root = Path(self.root) if self.root else Path.cwd()
        except FileNotFoundError:
            print("stringsh: the current folder no longer exists: cd to a folder, or name one with --root DIR",
                  file=sys.stderr)
            return None
        if not root.is_dir():
            print(f"stringsh: workspace folder not found: {root}", file=sys.stderr)
            return None
        return root
