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


def cpu_seconds(pid: int, tree: bool = True) -> float:
    """CPU time (user + system) the process has used; `tree`: with its living descendants (the shells, their
    sandboxes) and the children they waited for."""
    tick = os.sysconf("SC_CLK_TCK")
    if not tree:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return sum(int(value) for value in fields[11:13]) / tick
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry.name)] = int(fields[1])
        times[int(entry.name)] = sum(int(value) for value in fields[11:15]) / tick

    def descends(child: int) -> bool:
        while child > 1:
            if child == pid:
                return True
            child = parents.get(child, 0)
        return False

    return sum(seconds for each, seconds in times.items() if descends(each))
