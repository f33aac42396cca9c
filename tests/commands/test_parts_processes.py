"""Clients editing different parts of one file all succeed; the same part, exactly one (real daemon processes).

Four `stringsh daemon --json` processes (four clients) each edit their own block of doc.md and replace their own
line of r.txt, all at once: every edit applies, none is refused, and each client's /undo takes back exactly its
own last edit. Then two clients read one block and both edit it: one succeeds, the other gets a CONFLICT naming
the block and showing the winner's text, never a lost update.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import IO, Any

from tests.conftest import STRINGSH

CLIENTS = 4
EDITS = 6  # per client, of each kind: a few dozen edits in all


def doc_text(values: list[str]) -> str:
    return "# Doc\n\n" + "".join(f"## Part {k}\n\n{value}\n\n" for k, value in enumerate(values))


def slots_text(values: list[int]) -> str:
    return "".join(f"slot{k}={value}\n" for k, value in enumerate(values))


class Daemon:
    """One client: a `stringsh daemon --json` process, requests written at once, replies read in order."""

    def __init__(self, ws: Path) -> None:
        self.proc = subprocess.Popen([*STRINGSH, "daemon", "--json"], cwd=ws, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        self.sent = 0

    def send(self, *cmds: str) -> None:
        stdin: IO[str] = self.proc.stdin  # type: ignore[assignment]
        for cmd in cmds:
            stdin.write(json.dumps({"id": self.sent, "cmd": cmd}) + "\n")
            self.sent += 1
        stdin.flush()

    def replies(self, count: int) -> list[dict[str, Any]]:
        stdout: IO[str] = self.proc.stdout  # type: ignore[assignment]
        got = [json.loads(stdout.readline()) for _ in range(count)]
        return sorted(got, key=lambda reply: reply["id"])

    def close(self) -> None:
        self.proc.stdin.close()  # type: ignore[union-attr]
        self.proc.wait(timeout=60)


def test_clients_editing_their_own_parts_all_succeed_and_one_part_has_one_winner(ws: Path) -> None:
    (ws / "doc.md").write_text(doc_text(["start"] * CLIENTS))
    (ws / "r.txt").write_text(slots_text([0] * CLIENTS))
    daemons = [Daemon(ws) for _ in range(CLIENTS)]
    try:
        for k, daemon in enumerate(daemons):
            cmds = []
            for i in range(1, EDITS + 1):
                cmds.append(f"/replace r.txt\nslot{k}={i - 1}\n---\nslot{k}={i}\n")
                cmds.append(f"/edit doc.md#part-{k}\nvalue {k}.{i}\n")
            daemon.send(*cmds, "/undo")
        for daemon in daemons:
            replies = daemon.replies(2 * EDITS + 1)
            refused = [(reply["code"], reply["content"]) for reply in replies if not reply["ok"]]
            assert refused == []
            assert replies[-1]["content"].startswith(("re: [12] /undo\nUndo: reverted doc.md (",))
        # every accepted edit is there; each /undo took back only its client's last block edit
        assert (ws / "doc.md").read_text() == doc_text([f"value {k}.{EDITS - 1}" for k in range(CLIENTS)])
        assert (ws / "r.txt").read_text() == slots_text([EDITS] * CLIENTS)

        first, second = daemons[0], daemons[1]
        for daemon in (first, second):
            daemon.send("/edit doc.md#part-1")
            assert daemon.replies(1)[0]["ok"]
        first.send("/edit doc.md#part-1\nfirst was here\n")
        second.send("/edit doc.md#part-1\nsecond was here\n")
        outcomes = [first.replies(1)[0], second.replies(1)[0]]
    finally:
        for daemon in daemons:
            daemon.close()
    won = [reply for reply in outcomes if reply["ok"]]
    lost = [reply for reply in outcomes if not reply["ok"]]
    assert len(won) == 1 and len(lost) == 1
    winner = "first" if won[0] is outcomes[0] else "second"
    assert lost[0]["code"] == "CONFLICT"
    assert lost[0]["content"].split("\n", 1)[1] == (
        "ERROR(CONFLICT): Refusing to edit doc.md#part-1: the block changed since this topic read it; nothing was "
        f"written.\nIts text now:\n## Part 1\n\n{winner} was here\n"
        "Redo the edit on this text: /edit doc.md#part-1 with the new body."
    )
    values = [f"value {k}.{EDITS - 1}" for k in range(CLIENTS)]
    values[1] = f"{winner} was here"
    assert (ws / "doc.md").read_text() == doc_text(values)
