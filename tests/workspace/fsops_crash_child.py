"""Child for the file-operation crash test: runs one operation and dies (os._exit, no clean-up, like SIGKILL) at
the named point: after the folders were made, after the first file was committed, or before the removals."""

from __future__ import annotations

import os
import sys

from stringsh.workspace import Workspace, atomic, changes
from stringsh.workspace import tree as treeops
from stringsh.workspace.paths import TEMP_PREFIX

OPERATIONS = {
    "move": lambda ws: ws.move("d", "z/q", create_parents=True),
    "delete": lambda ws: ws.delete("d", recursive=True),
    "mkdir": lambda ws: ws.mkdir("n/m", create_parents=True),
}


def die(*_: object, **__: object) -> None:
    os._exit(137)


def main() -> None:
    root, operation, point = sys.argv[1:4]
    workspace = Workspace(root)
    if point == "after_make":
        changes.execute = die  # type: ignore[assignment]
    elif point == "mid_files":
        commit = atomic.commit
        count = [0]

        def commit_once(*args: object) -> None:
            if count[0] == 1:
                die()
            count[0] += 1
            commit(*args)  # type: ignore[arg-type]

        atomic.commit = commit_once  # type: ignore[assignment]
        real_remove = atomic.remove

        def remove_once(fd: int, name: str) -> None:
            if not name.startswith(TEMP_PREFIX) and count[0] == 1:
                die()
            if not name.startswith(TEMP_PREFIX):
                count[0] += 1
            real_remove(fd, name)

        atomic.remove = remove_once  # type: ignore[assignment]
    elif point == "before_removals":
        treeops.remove_all = die  # type: ignore[assignment]
    OPERATIONS[operation](workspace)
    print("finished", flush=True)


if __name__ == "__main__":
    main()
