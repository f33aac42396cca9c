"""The page's only writes: revert one change set, or undo one client's newest change in a topic.

Each is one request of the `web` dialect (so the audit log and `/changes` say the page did it) running the engine's
own operation, `Workspace.revert` as `/revert ID` runs it, or `Workspace.undo` as `/undo` runs it for that client:
the same permission checks and guards, and a CONFLICT when a file changed since, shown, never forced. An undo names
the change the person confirmed; if the client's newest change is another one by then, it is refused, not done.
Replies are worded as `/revert` and `/undo` word theirs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.documents.revertreply import outcome_parts
from stringsh.errors import StringError

if TYPE_CHECKING:
    from stringsh.workspace import Workspace

DIALECT = "web"
#: The topic the page's reverts are made in (each is a change `/undo` there, or a revert of it, takes back).
TOPIC = "web"
#: The program named in the audit records of the page's requests.
AGENT = "stringsh web"


def revert(ws: Workspace, change_id: int) -> tuple[str, int]:
    """`/revert ID` from the page: its reply text and the new change set's id."""
    with ws.request(DIALECT, "web.revert", topic=TOPIC, command=f"/revert {change_id}", agent=AGENT,
                    paths=(str(change_id),)):
        outcome = ws.revert(change_id, topic=TOPIC, undoable=True)
    parts = outcome_parts(outcome)
    return (f"Reverted change {change_id} as change {outcome.change_id}: " + ("; ".join(parts) or "nothing to write"),
            outcome.change_id)


def next_undo(ws: Workspace, client: str, topic: str) -> int | None:
    """The change `/undo` of `client` in `topic` would take back next."""
    return next((row.next_undo for row in ws.change_clients() if (row.client, row.topic) == (client, topic)), None)


def undo(ws: Workspace, client: str, topic: str, expected: int) -> tuple[str, int]:
    """`/undo` for `client` in `topic`, of the change the person confirmed (`expected`): its reply and the undo's
    change set. Under the workspace lock, so no other change slips in between the check and the undo."""
    with ws.request(DIALECT, "web.undo", topic=topic, client=client, command=f"/undo (web, client {client})",
                    agent=AGENT), ws.locked():
        now = next_undo(ws, client, topic)
        if now != expected:
            said = f"is now change {now}" if now is not None else "has no change left to undo"
            raise StringError("CONFLICT", f"Client {client}'s newest change in topic {topic} {said}, not change "
                              f"{expected}.", "Nothing was changed; look at the client's changes again, then confirm.")
        outcome = ws.undo(topic)
    return "Undo: " + "; ".join(outcome_parts(outcome)), outcome.change_id
