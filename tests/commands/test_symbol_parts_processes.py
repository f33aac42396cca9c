"""Clients editing different symbols of one source file all succeed; the same symbol, exactly one (real daemon
processes).

Two `stringsh daemon --json` processes each replace their own method of one Python class many times, all at
once: every edit lands, none is refused, and each client's /undo takes back only its own method's last edit. Then
both read one method and both edit it: one succeeds, the other gets a CONFLICT naming the symbol and showing the
winner's text, never a lost update.
"""

from __future__ import annotations

from pathlib import Path

from tests.commands.test_parts_processes import Daemon

CLIENTS = 2
EDITS = 8  # per client


def method(k: int, value: str) -> str:
    return f"    def m{k}(self):\n        return {value}\n"


def box_text(values: list[str]) -> str:
    return "class Box:\n" + "\n".join(method(k, value) for k, value in enumerate(values)) + "\n\ndone = True\n"


def test_clients_editing_their_own_methods_all_land_and_one_method_has_one_winner(ws: Path) -> None:
    (ws / "box.py").write_text(box_text(["0"] * CLIENTS))
    daemons = [Daemon(ws) for _ in range(CLIENTS)]
    try:
        for k, daemon in enumerate(daemons):
            daemon.send(*[f"/edit box.py#Box.m{k}\n{method(k, f'{k}{i}')}" for i in range(1, EDITS + 1)], "/undo")
        for daemon in daemons:
            replies = daemon.replies(EDITS + 1)
            refused = [(reply["code"], reply["content"]) for reply in replies if not reply["ok"]]
            assert refused == []
            assert replies[-1]["content"].startswith(f"re: [{EDITS}] /undo\nUndo: reverted box.py (")
        # every edit landed; each /undo took back only its client's last edit of its own method
        assert (ws / "box.py").read_text() == box_text([f"{k}{EDITS - 1}" for k in range(CLIENTS)])

        first, second = daemons
        for daemon in (first, second):
            daemon.send("/open box.py#Box.m1")
            assert daemon.replies(1)[0]["ok"]
        first.send(f"/edit box.py#Box.m1\n{method(1, repr('first'))}")
        second.send(f"/edit box.py#Box.m1\n{method(1, repr('second'))}")
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
        "ERROR(CONFLICT): Refusing to edit box.py#Box.m1: the block changed since this topic read it; nothing was "
        f"written.\nIts text now:\n{method(1, repr(winner))}"
        "Redo the edit on this text: /edit box.py#Box.m1 with the new body."
    )
    assert (ws / "box.py").read_text() == box_text([f"0{EDITS - 1}", repr(winner)])
