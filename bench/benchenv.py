"""What every bench shares: its workspaces' engine state (journal, audit log) and its user configuration go to
temporary folders that are removed at exit, never into the user's own; the package's bytecode is written first, as
an installer does, so no process a bench times pays for compiling a module (a checkout with stale bytecode under
PYTHONDONTWRITEBYTECODE=1 recompiles every changed module in every process)."""

from __future__ import annotations

import atexit
import compileall
import os
import shutil
import tempfile
from pathlib import Path


def isolate_user_state() -> None:
    for variable in ("STRINGSH_STATE_DIR", "STRINGSH_CONFIG_DIR"):
        folder = tempfile.mkdtemp(prefix=f"stringsh-bench-{variable.rsplit('_', 2)[1].lower()}-")
        os.environ[variable] = folder  # child processes inherit it
        atexit.register(shutil.rmtree, folder, True)


def compile_package() -> Path:
    """Write the package's bytecode into its __pycache__ folders, as an installer does."""
    import stringsh

    package = Path(stringsh.__file__).parent
    compileall.compile_dir(str(package), quiet=1)
    return package
