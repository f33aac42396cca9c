"""What the page shows, as JSON: audit records, change sets and clients, every text masked as any other output is.

A change set's diff is `/changes ID`'s own (commands/changes.py `show`: the diff computed on masked texts), so the
page never shows what a terminal would not. An audit record keeps paths and command lines as they were asked;
each is masked here with the policy's redactor, as `stringsh audit tail` masks its lines.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

from stringsh.escapes import shown_name

if TYPE_CHECKING:
    from collections.abc import Callable

    from stringsh.workspace import AuditEntry, AuditSpot, ChangeRow, ClientChanges, Health, Workspace

#: The outcomes the page sets apart: a refusal by a guard or a rule, and a conflict with another client's change.
CONFLICT = "CONFLICT"


def spot_text(spot: AuditSpot | None) -> str | None:
    """A record's place as the page passes it back (`INODE:OFFSET`)."""
    return None if spot is None else f"{spot.ino}:{spot.offset}"


def parse_spot(text: str | None) -> AuditSpot | None:
    """`INODE:OFFSET` back to a place; None for none or anything else."""
    from stringsh.workspace import AuditSpot

    if not text:
        return None
    ino, _, offset = text.partition(":")
    if not (ino.isdigit() and offset.isdigit()):
        return None
    return AuditSpot(int(ino), int(offset))


def record(entry: AuditEntry, mask: Callable[[str], str]) -> dict[str, Any] | None:
    """One audit record for the page; None for a line that is not a record."""
    fields = _fields(entry.line)
    return None if fields is None else _shown(entry, fields, mask)


def wanted_record(entry: AuditEntry, mask: Callable[[str], str], wanted: Filter) -> dict[str, Any] | None:
    """The record for the page when `wanted` accepts it, else None. Its outcome (never masked) is looked at before
    anything is masked: a filter that matches little costs a parse per record read back, not a masking."""
    fields = _fields(entry.line)
    if fields is None or not wanted.accepts_outcome(_outcome(fields)):
        return None
    shown = _shown(entry, fields, mask)
    return shown if shown is not None and wanted.accepts(shown) else None


def _fields(line: str) -> dict[str, Any] | None:
    try:
        fields = json.loads(line)
    except ValueError:
        return None
    return fields if isinstance(fields, dict) else None


def _outcome(fields: dict[str, Any]) -> tuple[str, str]:
    """A record's outcome and its kind (`ok`, `conflict`, `refused`)."""
    outcome = str(fields.get("outcome", "ok"))
    return outcome, "ok" if outcome == "ok" else ("conflict" if outcome == CONFLICT else "refused")


def _shown(entry: AuditEntry, fields: dict[str, Any], mask: Callable[[str], str]) -> dict[str, Any] | None:
    try:
        return _shaped(entry, fields, mask)
    except (TypeError, ValueError, AttributeError):  # a line edited by hand: `audit verify` names it
        return None


def _shaped(entry: AuditEntry, fields: dict[str, Any], mask: Callable[[str], str]) -> dict[str, Any]:
    changes = fields.get("changes") or ([fields["change"]] if fields.get("change") is not None else [])
    outcome, kind = _outcome(fields)
    command = fields.get("command")
    agent = fields.get("agent")
    return {
        "id": spot_text(entry.spot),
        "time": float(fields.get("time", 0) or 0),
        "client": mask(str(fields.get("client") or "-")),
        "dialect": str(fields.get("frontend", "-")),
        "agent": None if agent is None else mask(str(agent)),
        "topic": mask(str(fields.get("topic", "-"))),
        "op": mask(str(fields.get("op", "-"))),
        "paths": [mask(shown_name(str(path))) for path in fields.get("paths") or []],
        "outcome": outcome,
        "kind": kind,
        "ms": float(fields.get("ms", 0) or 0),
        "changes": [int(change) for change in changes if isinstance(change, int)],
        "command": None if command is None else mask(str(command)),
    }


class Filter:
    """The request feed's filter: a client (its name or its program's, a part of either), a part of a path, and an
    outcome (`ok`, `refused`: anything else, `conflict`, or one code)."""

    def __init__(self, client: str = "", path: str = "", outcome: str = "") -> None:
        self.client = client
        self.path = path
        self.outcome = outcome

    def accepts(self, shown: dict[str, Any]) -> bool:
        if self.client and self.client not in shown["client"] and self.client not in (shown["agent"] or ""):
            return False
        if self.path and not any(self.path in path for path in shown["paths"]):
            return False
        return self.accepts_outcome((shown["outcome"], shown["kind"]))

    def accepts_outcome(self, outcome: tuple[str, str]) -> bool:
        """Whether the outcome filter accepts a record of this (outcome, kind)."""
        code, kind = outcome
        if self.outcome in ("", "all"):
            return True
        if self.outcome == "refused":
            return kind != "ok"
        if self.outcome in ("ok", "conflict"):
            return kind == self.outcome
        return code == self.outcome


def change_row(row: ChangeRow, paths: list[str]) -> dict[str, Any]:
    """A change set as the page lists it: who, when, what, which files, and what became of it."""
    from stringsh.commands.changes import status

    return {"id": row.id, "time": row.time, "topic": row.topic, "dialect": row.frontend, "client": row.client or "-",
            "kind": row.kind, "state": row.state, "reverts": row.reverts, "reverted_by": row.reverted_by,
            "command": row.command or "-", "status": status(row), "paths": [shown_name(path) for path in paths]}


def change_detail(ws: Workspace, change_id: int) -> dict[str, Any]:
    """One change set as `/changes ID` shows it: its heading and its masked unified diff, line by line."""
    from stringsh.commands.changes import show

    shown = show(ws, change_id)
    return {"id": change_id, "head": shown.message, "diff": (shown.content or "").split("\n")}


def clients(journal: list[ClientChanges], seen: dict[tuple[str, str], dict[str, Any]]) -> list[dict[str, Any]]:
    """Every client and topic: what the journal says of its changes (`journal`, Workspace.change_clients: count,
    undo depth, the change `/undo` would take next) beside what the audit log says of its requests (`seen`: the
    last one, counts)."""
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for each in journal:
        rows[(each.client, each.topic)] = journal_part(each)
    for key, last in seen.items():
        rows.setdefault(key, {"client": key[0], "topic": key[1], "changes": 0, "undo_depth": 0, "next_undo": None,
                              "dialect": last["dialect"], "changed": None})
        rows[key] |= {"dialect": last["dialect"], "agent": last["agent"], "last_op": last["op"],
                      "last_time": last["time"], "last_outcome": last["outcome"], "requests": last["requests"],
                      "refusals": last["refusals"], "activity": activity(last.get("minutes", {}))}
    now = time.time()
    listed = sorted(rows.values(), key=lambda row: max(row.get("last_time") or 0, row.get("changed") or 0),
                    reverse=True)
    for row in listed:
        row["active"] = now - max(row.get("last_time") or 0, row.get("changed") or 0) < ACTIVE_SECONDS
    return listed


#: A client whose last request or change is this recent is shown as working now.
ACTIVE_SECONDS = 60.0
#: The clients' chart: the last hour, in bars of five minutes.
CHART_MINUTES = 60
CHART_BAR = 5


def activity(minutes: dict[int, list[int]], now: float | None = None) -> list[list[int]]:
    """Requests and refusals per bar of `CHART_BAR` minutes over the last `CHART_MINUTES`, oldest first."""
    current = int((time.time() if now is None else now) // 60)
    bars = [[0, 0] for _ in range(CHART_MINUTES // CHART_BAR)]
    for minute, (requests, refusals) in minutes.items():
        age = current - minute
        if 0 <= age < CHART_MINUTES:
            bar = bars[len(bars) - 1 - age // CHART_BAR]
            bar[0] += requests
            bar[1] += refusals
    return bars


def journal_part(each: ClientChanges) -> dict[str, Any]:
    return {"client": each.client, "topic": each.topic, "changes": each.changes, "undo_depth": each.undo_depth,
            "next_undo": each.next_undo, "dialect": each.frontend, "changed": each.time}


def note_request(seen: dict[tuple[str, str], dict[str, Any]], shown: dict[str, Any]) -> None:
    """Count one audit record towards its client's row."""
    key = (shown["client"], shown["topic"])
    last = seen.get(key)
    if last is None:
        last = seen[key] = {"requests": 0, "refusals": 0, "time": 0.0}
    last["requests"] += 1
    last["refusals"] += shown["kind"] != "ok"
    minutes: dict[int, list[int]] = last.setdefault("minutes", {})
    counts = minutes.setdefault(int(shown["time"] // 60), [0, 0])
    counts[0] += 1
    counts[1] += shown["kind"] != "ok"
    if len(minutes) > 2 * CHART_MINUTES:  # only the last hour is drawn
        newest = max(minutes)
        for minute in [minute for minute in minutes if minute <= newest - CHART_MINUTES]:
            del minutes[minute]
    if shown["time"] >= last["time"]:
        last |= {"time": shown["time"], "op": shown["op"], "dialect": shown["dialect"], "agent": shown["agent"],
                 "outcome": shown["outcome"]}


def counted(line: str) -> dict[str, Any] | None:
    """What counting a record towards its client needs (note_request), unmasked: the older records are many, and
    their clients few, so each client's name is masked once (merge_counts), not once per record."""
    fields = _fields(line)
    if fields is None:
        return None
    outcome, kind = _outcome(fields)
    try:
        return {"client": str(fields.get("client") or "-"), "topic": str(fields.get("topic", "-")),
                "time": float(fields.get("time", 0) or 0), "op": str(fields.get("op", "-")),
                "dialect": str(fields.get("frontend", "-")), "agent": fields.get("agent"), "outcome": outcome,
                "kind": kind}
    except (TypeError, ValueError):  # a line edited by hand: `audit verify` names it
        return None


def merge_counts(seen: dict[tuple[str, str], dict[str, Any]], older: dict[tuple[str, str], dict[str, Any]],
                 mask: Callable[[str], str]) -> None:
    """Add the counts of older records (`older`, by unmasked client and topic) to `seen` (by masked ones)."""
    for (client, topic), counts in older.items():
        key = (mask(client), mask(topic))
        last = seen.get(key)
        if last is None:
            last = seen[key] = {"requests": 0, "refusals": 0, "time": 0.0}
        last["requests"] += counts["requests"]
        last["refusals"] += counts["refusals"]
        minutes: dict[int, list[int]] = last.setdefault("minutes", {})
        for minute, (requests, refusals) in counts.get("minutes", {}).items():
            both = minutes.setdefault(minute, [0, 0])
            both[0] += requests
            both[1] += refusals
        if counts["time"] > last["time"] or "op" not in last:  # no request lately: its last one is an older one
            agent = counts["agent"]
            last |= {"time": counts["time"], "op": mask(counts["op"]), "dialect": counts["dialect"],
                     "agent": None if agent is None else mask(str(agent)), "outcome": counts["outcome"]}


def health(state: Health, mask: Callable[[str], str], lock_since: float | None = None) -> dict[str, Any]:
    """The health for the page; `lock_since`: since when every look saw the lock's holder hold it."""
    lock = state.lock
    degraded = state.degraded
    return {"read_only": state.read_only, "free_bytes": state.free_bytes, "total_bytes": state.total_bytes,
            "lock": {"held": lock.held, "pid": lock.pid, "program": mask(lock.program) if lock.program else None,
                     "since": lock_since if lock.held else None},
            "degraded": None if degraded is None else {"code": degraded.code, "why": mask(degraded.why),
                                                       "pid": degraded.pid, "time": degraded.time}}
