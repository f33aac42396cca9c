"""Where the REPL keeps its input history: `$STRINGSH_HISTORY`, else the XDG state folder.

Only people's REPL input is kept here; agents and scripts leave no history file.
"""

from __future__ import annotations

import os
from pathlib import Path

from prompt_toolkit.history import FileHistory, History, InMemoryHistory, ThreadedHistory

ENV_VAR = "STRINGSH_HISTORY"


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
    return ThreadedHistory(FileHistory(str(path)))
