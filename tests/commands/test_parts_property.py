"""Property: clients that edit different parts of one file never refuse each other, and each change undoes alone.

Several clients (in-process `Dispatcher`s on one workspace, each its own journal client) interleave block edits of
their own section of doc.md (bodies of one to three lines, so the sections around move), replaces of their own
line of r.txt (old text → new, and `path:Ln`), and reads. Every edit is accepted and the files hold every
accepted edit; then the clients' `/undo`s, interleaved at random, each take back exactly that client's newest
change, leaving the files as they started.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from stringsh.dispatcher import Dispatcher

CLIENTS = 3
KINDS = ("block", "replace", "line", "read")


def doc_text(parts: list[list[str]]) -> str:
    return "# Doc\n\n" + "".join(f"## Part {k}\n\n" + "".join(f"{line}\n" for line in part) + "\n"
                                  for k, part in enumerate(parts))


def slots_text(slots: list[str]) -> str:
    return "".join(f"slot{k}={value}\n" for k, value in enumerate(slots))


def reply(dispatcher: Dispatcher, command: str) -> str:
    """The reply's first line after `re:` (what was done, or the refusal)."""
    return dispatcher.execute(command).text.split("\n")[1]


steps = st.lists(st.tuples(st.integers(0, CLIENTS - 1), st.sampled_from(KINDS), st.integers(1, 3)),
                 min_size=1, max_size=14)


@settings(max_examples=12, deadline=None)
@given(steps=steps, order=st.randoms(use_true_random=False))
def test_interleaved_edits_of_different_parts_all_apply_and_each_undoes_alone(steps, order) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / "ws"
        ws.mkdir()
        parts = [[f"start {k}"] for k in range(CLIENTS)]
        slots = [f"s{k}" for k in range(CLIENTS)]
        first = (doc_text(parts), slots_text(slots))
        (ws / "doc.md").write_text(first[0])
        (ws / "r.txt").write_text(first[1])
        clients = [Dispatcher(ws) for _ in range(CLIENTS)]
        try:
            changes = [0] * CLIENTS
            for n, (k, kind, size) in enumerate(steps):
                client, value = clients[k], f"v{k}.{n}"
                if kind == "read":
                    assert reply(client, "/open doc.md").startswith("Opened doc.md")
                    continue
                if kind == "block":
                    body = [f"{value} line {i}" for i in range(size)]
                    said = reply(client, f"/edit doc.md#part-{k}\n" + "".join(f"{line}\n" for line in body))
                    assert said.startswith(f"Edited doc.md#part-{k} "), said
                    parts[k] = body
                elif kind == "replace":
                    said = reply(client, f"/replace r.txt\nslot{k}={slots[k]}\n---\nslot{k}={value}\n")
                    assert said == "Replaced 1 occurrence in r.txt", said
                    slots[k] = value
                else:
                    said = reply(client, f"/replace r.txt:L{k + 1}\nslot{k}={value}\n")
                    assert said == f"Replaced r.txt:L{k + 1}", said
                    slots[k] = value
                changes[k] += 1
            assert (ws / "doc.md").read_text() == doc_text(parts)
            assert (ws / "r.txt").read_text() == slots_text(slots)
            undos = [k for k in range(CLIENTS) for _ in range(changes[k])]
            order.shuffle(undos)
            for k in undos:
                said = reply(clients[k], "/undo")
                assert said.startswith("Undo: reverted "), said
            assert ((ws / "doc.md").read_text(), (ws / "r.txt").read_text()) == first
        finally:
            for client in clients:
                client.close()
