"""Child process for the crash test: applies multi-file change sets (writes, a delete, undos) forever and
reports each change id only after `apply`/`undo` returned. The parent kills it with SIGKILL at random."""

from __future__ import annotations

import sys

from stringsh.workspace import ChangeSet, Workspace

NAMES = [f"f{i}.txt" for i in range(5)] + ["sub/deep/g.txt"]


def main() -> None:
    root, start = sys.argv[1], int(sys.argv[2])
    workspace = Workspace(root)
    workspace.recover()
    print("ready", flush=True)
    gen = start
    while True:
        gen += 1
        if gen % 7 == 0:
            try:
                outcome = workspace.undo("main")
                print(f"done {outcome.change_id}", flush=True)
            except Exception as exc:  # report; the parent decides
                print(f"undo-refused {exc!r}", flush=True)
            continue
        changeset = ChangeSet()
        for index, name in enumerate(NAMES):
            if index == 4 and gen % 5 == 0:
                if workspace.stat(name) is not None:
                    changeset.delete(name)
                continue
            changeset.write(name, (f"generation {gen} file {index}\n" * 150).encode())
        print(f"done {workspace.apply(changeset)}", flush=True)


if __name__ == "__main__":
    main()
