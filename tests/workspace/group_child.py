"""Child for the group commit tests (test_group_commit.py): four threads edit their own line of one file at once,
queued behind the workspace lock this child holds until all four wait, so one leader commits them as one chain.

    group_child.py ROOT POINT

POINT: where the chain's commit dies (os._exit, no clean-up, like SIGKILL): `seal` (the four change sets recorded
pending, nothing durable yet), `rename` (sealed, the newest bytes not yet renamed into place), `dir_fsyncs` (renamed,
the folder not yet fsynced), `finish` (durable, none marked done), `second_finish` (the oldest marked done only);
`never`: prints the four change ids and exits.

`queued-POINT`: the same with another process seen waiting for the lock (this child holds `lock.wants` shared, as a
waiting process does), so the chain is queued (workspace/queued.py) and put in place when the lock is taken to
settle it: `queued-queued` dies right after queueing (recorded, its temp file written, nothing synced or renamed),
`queued-rename` at the rename of the flush, `queued-second_finish` with the oldest marked done only."""

from __future__ import annotations

import fcntl
import os
import sys
import threading
from pathlib import Path

from stringsh.workspace import Workspace, atomic
from stringsh.workspace.journal import Journal
from stringsh.workspace.state import state_folder
from stringsh.workspace.statelock import WANTS_FILE, StateLock

WRITERS = 4
FILE = "lines.txt"


def start_text() -> str:
    return "".join(f"writer {k}: start\n" for k in range(WRITERS))


def end_text() -> str:
    return "".join(f"writer {k}: edited\n" for k in range(WRITERS))


def die(*_: object, **__: object) -> None:
    os._exit(137)


def arm(point: str) -> None:
    if point == "queued":
        StateLock.await_release = die  # type: ignore[method-assign]
    elif point == "seal":
        Journal.seal = die  # type: ignore[method-assign]
    elif point == "rename":
        atomic.commit = die  # type: ignore[assignment]
    elif point == "dir_fsyncs":
        atomic.fsync_dirs = die  # type: ignore[assignment]
    elif point in ("finish", "second_finish"):
        finish = Journal.finish
        calls = [0]

        def finish_until(self: Journal, *args: object, **kwargs: object) -> None:
            if calls[0] == (0 if point == "finish" else 1):
                die()
            calls[0] += 1
            finish(self, *args, **kwargs)  # type: ignore[arg-type]

        Journal.finish = finish_until  # type: ignore[method-assign]


def edit(workspace: Workspace, k: int, ids: list[int]) -> None:
    topic = f"writer-{k}"
    with workspace.request("string", "/replace", topic=topic, command=f"/replace {FILE} (writer {k})"):
        done = workspace.edit_text(FILE, lambda current: current.text.replace(f"writer {k}: start",
                                                                               f"writer {k}: edited"), topic=topic)
    ids.append(done.change_id)


def queued(workspace: Workspace) -> int:
    group = workspace.state.edit_group
    return 0 if group is None else group.queued


def run_batch(workspace: Workspace, before_release: object = None) -> list[int]:
    """The four edits, queued while this thread holds the lock, then committed as one batch."""
    ids: list[int] = []
    with workspace.locked():
        threads = [threading.Thread(target=edit, args=(workspace, k, ids)) for k in range(WRITERS)]
        for thread in threads:
            thread.start()
        while queued(workspace) < WRITERS:
            threading.Event().wait(0.01)
        if callable(before_release):
            before_release()
    for thread in threads:
        thread.join()
    return sorted(ids)


def main() -> None:
    root, point = sys.argv[1], sys.argv[2]
    workspace = Workspace(root)
    workspace.write_text("warm.txt", "warm\n")  # the journal exists before the batch
    if point.startswith("queued-"):
        point = point.removeprefix("queued-")
        waiter = os.open(state_folder(Path(root)) / WANTS_FILE, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(waiter, fcntl.LOCK_SH)  # as a process waiting for the lock holds it
    ids = run_batch(workspace, lambda: arm(point))
    print(" ".join(map(str, ids)), flush=True)
    workspace.close()


if __name__ == "__main__":
    main()
