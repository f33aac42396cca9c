"""Child process for the concurrency test: many read-modify-write cycles on one shared file."""

from __future__ import annotations

import sys

from stringsh.errors import StringError
from stringsh.workspace import ChangeSet, WholeFile, Workspace


def increment(workspace: Workspace, rounds: int, via_apply: bool) -> int:
    """Add one to the counter `rounds` times, retrying on CONFLICT; returns the number of conflicts seen."""
    conflicts = 0
    for _ in range(rounds):
        while True:
            current = workspace.read_text("counter.txt")
            value = str(int(current.text) + 1)
            try:
                if via_apply:
                    change = ChangeSet().write("counter.txt", value.encode(), expected_prev_sha256=current.sha256)
                    workspace.apply(change)
                else:
                    workspace.write_text("counter.txt", value, guard=WholeFile(current.sha256))
                break
            except StringError as exc:
                if exc.code != "CONFLICT":
                    raise
                conflicts += 1
    return conflicts


def main() -> None:
    root, mode, name, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    workspace = Workspace(root)
    print("ready", flush=True)
    sys.stdin.readline()  # start together
    if mode == "append":
        for i in range(rounds):
            workspace.append_text("log.txt", f"{name} {i}\n", topic=name)
        print("conflicts 0", flush=True)
    else:
        print(f"conflicts {increment(workspace, rounds, mode == 'apply')}", flush=True)
    workspace.close()


if __name__ == "__main__":
    main()
