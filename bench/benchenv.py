"""What every bench shares: its workspaces' engine state (journal, audit log) and its user configuration go to
temporary folders that are removed at exit, never into the user's own."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile


def isolate_user_state() -> None:
    for variable in ("STRINGSH_STATE_DIR", "STRINGSH_CONFIG_DIR"):
        folder = tempfile.mkdtemp(prefix=f"stringsh-bench-{variable.rsplit('_', 2)[1].lower()}-")
        os.environ[variable] = folder  # child processes inherit it
        atexit.register(shutil.rmtree, folder, True)
