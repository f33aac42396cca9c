"""Child for the 100-file change-set tests (test_change_batching.py): applies (and reverts) a change set of 100
files in several folders — 90 rewritten (one of 160 KiB), 5 new in new folders, 5 deleted — and either

- `trace ROUNDS`: does ROUNDS apply/revert pairs, each between marker syscalls (`access("/stringsh-mark-...")`)
  that strace shows, so the test can read what each one did; or
- `crash OP POINT`: dies (os._exit, no clean-up, like SIGKILL) at POINT inside the apply (OP=apply) or inside the
  revert of a finished apply (OP=revert): `seal` (journal record committed, WAL not yet fsynced), `first_rename`,
  `mid_renames` (half the files replaced), `dir_fsyncs` (every file replaced, no folder fsynced), `finish`
  (everything durable, the change set not marked done).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from stringsh.workspace import ChangeSet, Workspace, atomic
from stringsh.workspace.journal import Journal

FOLDERS = ("", "a/", "b/c/")
NEW = "new/deep/"
BIG = "a/big.txt"


def rewritten() -> list[str]:
    """89 files of 4 KiB, and one big enough for its previous bytes to be kept as a blob file (blobfiles.py)."""
    return [f"{FOLDERS[k % 3]}f{k:03d}.txt" for k in range(89)] + [BIG]


def deleted() -> list[str]:
    return [f"gone{k}.txt" for k in range(5)]


def created() -> list[str]:
    return [f"{NEW}n{k}.txt" for k in range(5)]


def content(tag: str, path: str) -> bytes:
    """4 KiB of text lines (BIG: 160 KiB), different for every tag and path."""
    lines = 64 * (40 if path == BIG else 1)
    return b"".join(f"{tag} {path} line {k:04d}".ljust(63).encode() + b"\n" for k in range(lines))


def make_tree(root: Path) -> None:
    for path in rewritten() + deleted():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(content("start", path))


def changeset(tag: str) -> ChangeSet:
    cs = ChangeSet()
    for path in rewritten() + created():
        cs.write(path, content(tag, path))
    for path in deleted():
        cs.delete(path)
    return cs


def mark(label: str) -> None:
    os.access(f"/stringsh-mark-{label}", os.F_OK)


def die(*_: object, **__: object) -> None:
    os._exit(137)


def arm(point: str) -> None:
    """Make the next change set die at `point`."""
    if point == "seal":
        Journal.seal = die  # type: ignore[method-assign]
    elif point in ("first_rename", "mid_renames"):
        commit = atomic.commit
        count = [0]
        stop = 0 if point == "first_rename" else 47

        def commit_until(*args: object) -> None:
            if count[0] == stop:
                die()
            count[0] += 1
            commit(*args)  # type: ignore[arg-type]

        atomic.commit = commit_until  # type: ignore[assignment]
    elif point == "dir_fsyncs":
        atomic.fsync_dirs = die  # type: ignore[assignment]
    elif point == "finish":
        Journal.finish = die  # type: ignore[method-assign]


def main() -> None:
    root, mode = sys.argv[1], sys.argv[2]
    workspace = Workspace(root)
    if mode == "trace":
        print(os.getpid(), flush=True)
        workspace.apply(ChangeSet().write("warm.txt", b"warm\n"))  # creates the journal before the first mark
        for k in range(int(sys.argv[3])):
            mark(f"apply-{k}")
            change = workspace.apply(changeset(f"round {k}"))
            mark(f"revert-{k}")
            workspace.revert(change)
            mark(f"end-{k}")
        workspace.close()
        return
    op, point = sys.argv[3], sys.argv[4]
    if op == "revert":
        change = workspace.apply(changeset("applied"))
        print(change, flush=True)
        arm(point)
        workspace.revert(change)
    else:
        arm(point)
        workspace.apply(changeset("applied"))
    print("finished", flush=True)


if __name__ == "__main__":
    main()
