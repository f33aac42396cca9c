"""What every bench shares: its workspaces' engine state (journal, audit log) goes to a temporary folder that is
removed at exit, not into the user's state folder."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile


def isolate_user_state() -> None:
    folder = tempfile.mkdtemp(prefix="stringsh-bench-state-")
    os.environ["STRINGSH_STATE_DIR"] = folder  # child processes inherit it
    atexit.register(shutil.rmtree, folder, True)
