"""Where the REPL keeps its input history: `$STRINGSH_HISTORY`, else the XDG state folder.

Only people's REPL input is kept here; agents and scripts leave no history file. As in bash with
`HISTCONTROL=ignorespace`, a request typed with a leading space is not written to the file, and neither is a
`/set $NAME = …` (environment values are where API keys go); both stay recallable until the REPL exits.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from prompt_toolkit.history import FileHistory, History, InMemoryHistory, ThreadedHistory

ENV_VAR = "STRINGSH_HISTORY"
SECRET_SET = re.compile(r"^\s*(?:\[[^\]]*\]\s*)?/set\b[^\n]*\$[A-Za-z_]", re.IGNORECASE)


def kept_on_disk(text: str) -> bool:
    return not text.startswith(" ") and not SECRET_SET.match(text)


class PrivateFileHistory(FileHistory):
    """A FileHistory that leaves out what `kept_on_disk` refuses."""

    def store_string(self, string: str) -> None:
        if kept_on_disk(string):
            super().store_string(string)


def history_path() -> Path:
    override = os.environ.get(ENV_VAR)
    if override:
        return Path(override).expanduser()
    from platformdirs import user_state_dir

    return Path(user_state_dir("stringsh")) / "history"


def open_history() -> History:
    """A file history loaded on a thread (a long file must not delay the first prompt); in memory if unwritable."""
    path = history_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        path.touch(mode=0o600, exist_ok=True)
    except OSError:
        return InMemoryHistory()
    return ThreadedHistory(PrivateFileHistory(str(path)))
