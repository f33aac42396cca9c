"""Where the REPL keeps its input history: one file per workspace in the user's state folder, beside the
workspace's journal (`<state>/workspaces/<key>/history`), so Up, Ctrl-R and suggestions never offer a path from
another project; `$STRINGSH_HISTORY` names one file instead.

Only people's REPL input is kept here; agents and scripts leave no history file. As in bash with
`HISTCONTROL=ignorespace`, a request typed with a leading space is not written to the file, and neither is a
`/set` that assigns a `$NAME` in any form (on its line, in a `<<EOF` body, after Alt-Enter): environment values are
where API keys go. Both stay recallable until the REPL exits.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from prompt_toolkit.history import FileHistory, History, InMemoryHistory, ThreadedHistory

ENV_VAR = "STRINGSH_HISTORY"
HISTORY_FILE = "history"
#: A `/set` request (after an optional `[id]`) ...
SET_REQUEST = re.compile(r"^\s*(?:\[[^\]]*\]\s*)?/set\b", re.IGNORECASE)
#: ... that names a `$NAME` anywhere, header or body.
DOLLAR_NAME = re.compile(r"\$[A-Za-z_]")


def kept_on_disk(text: str) -> bool:
    return not text.startswith(" ") and not (SET_REQUEST.match(text) and DOLLAR_NAME.search(text))


class PrivateFileHistory(FileHistory):
    """A FileHistory that leaves out what `kept_on_disk` refuses."""

    def store_string(self, string: str) -> None:
        if kept_on_disk(string):
            super().store_string(string)


def history_path(workspace_state: Path) -> Path:
    """`$STRINGSH_HISTORY`, else the history file in the workspace's own state folder."""
    override = os.environ.get(ENV_VAR)
    if override:
        return Path(override).expanduser()
    return workspace_state / HISTORY_FILE


def open_history(workspace_state: Path | None) -> History:
    """A file history loaded on a thread (a long file must not delay the first prompt); in memory when there is
    no state folder (None: it could not be made) or the file cannot be written."""
    if workspace_state is None and not os.environ.get(ENV_VAR):
        return InMemoryHistory()
    path = history_path(workspace_state or Path())
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        path.touch(mode=0o600, exist_ok=True)
    except OSError:
        return InMemoryHistory()
    return ThreadedHistory(PrivateFileHistory(str(path)))
