"""Records which tests looked for a tool the bare machine lacks (`.ci/bare` runs only those again).

`tests/conftest.py` installs `watch()` in the pytest process when STRINGSH_TOOL_LOG names a folder, and puts this
folder on PYTHONPATH so every Python child the tests start (`python -m stringsh …`) imports it as `sitecustomize`
and records too. A lookup is charged to the test pytest is running, which children learn from the
PYTEST_CURRENT_TEST variable they inherit. Each process appends to a file of its own in that folder (an append
shared by many processes can tear on some file systems), one pytest argument per line: the test's id for a lookup
while it runs or tears down, its whole file for a lookup while fixtures are set up (a module's fixture serves
tests after the one that set it up, and a server it starts keeps the first test's name for every later lookup).
"""

from __future__ import annotations

import os
import shutil
import threading

#: The programs `.ci/bare` hides from PATH.
WATCHED = frozenset({"bwrap", "rg", "git", "node", "nodejs", "npm", "npx", "strace", "chromium"})


def charged(current: str) -> str:
    """What a lookup during `current` (PYTEST_CURRENT_TEST: `path::name[id] (phase)`) makes the bare pass run."""
    test, _, phase = current.rpartition(" (")
    return test.split("::", 1)[0] if phase == "setup)" else test


_writing = threading.Lock()


def append(line: str) -> None:
    """Add `line` to this process's own file in the STRINGSH_TOOL_LOG folder, if there is one."""
    folder = os.environ.get("STRINGSH_TOOL_LOG")
    if not folder:
        return
    with _writing, open(os.path.join(folder, f"{os.getpid()}.log"), "a", encoding="utf-8") as out:
        out.write(line + "\n")


def record() -> None:
    """Charge the running test with a tool lookup."""
    current = os.environ.get("PYTEST_CURRENT_TEST")
    if current:
        append(charged(current))


def watch() -> None:
    """Wrap `shutil.which` (every tool lookup of stringsh and the tests goes through it) to record watched names."""
    if getattr(shutil.which, "watched", False):
        return
    looked_up = shutil.which

    def which(cmd, mode=os.F_OK | os.X_OK, path=None):  # type: ignore[no-untyped-def]
        if os.path.basename(os.fsdecode(cmd)) in WATCHED:
            record()
        return looked_up(cmd, mode, path)

    which.watched = True  # type: ignore[attr-defined]
    shutil.which = which


if os.environ.get("STRINGSH_TOOL_LOG"):
    watch()
