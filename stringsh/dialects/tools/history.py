"""`changes`, `revert` and `undo`: the change journal as `/changes`, `/revert ID` and `/undo [--skip]` reach it (the
same engine operations, refusals and journal records), shaped as docs/json-tools.md's fields. Every call runs in
topic `tools`, so `undo` takes back this client's own tool changes, newest first."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from stringsh.dialects.tools.schema import Field, args_error
from stringsh.escapes import json_name

if TYPE_CHECKING:
    from stringsh.workspace import ChangeRow, RevertOutcome, Workspace

#: As `/changes -n`: the newest 20 by default, at most 1000.
DEFAULT_LIMIT, MAX_LIMIT = 20, 1000
CHANGES_FIELDS = (Field("id", "integer", minimum=1), Field("limit", "integer", minimum=1, maximum=MAX_LIMIT))
REVERT_FIELDS = (Field("id", "integer", required=True, minimum=1),)
UNDO_FIELDS = (Field("skip", "boolean"),)
CHANGES_ABOUT = "the change journal, newest first (/changes); with id one change set and its unified diff"
REVERT_ABOUT = "put back what one change set replaced, as a new change that undo takes back (/revert ID)"
UNDO_ABOUT = "take back this client's newest tool change not undone yet (/undo); skip passes over one (--skip)"


def summary(args: dict[str, Any]) -> tuple[list[str], str | None]:
    """As the String Command reads: `revert 12`, `changes -n 5`, `undo --skip`."""
    words = [str(args["id"])] if "id" in args else []
    words += [f"-n {args['limit']}"] if "limit" in args else []
    words += ["--skip"] if args.get("skip") else []
    return [], " ".join(words) or None


def _row(ws: Workspace, row: ChangeRow) -> dict[str, Any]:
    from stringsh.commands.changes import command_of, status, when

    return {"id": row.id, "time": when(row), "topic": row.topic, "command": command_of(row),
            "status": status(row).strip("()")}


def changes(ws: Workspace, args: dict[str, Any], topic: str) -> dict[str, Any]:
    """Without `id` the listing (`changes`, `kept`), with it one change set and its `diff`, as `/changes ID`."""
    from stringsh.commands.changes import show
    from stringsh.documents.changeview import counts

    if "id" in args:
        _change_id(args["id"])
        if "limit" in args:
            raise args_error("changes takes 'id' (one change set) or 'limit' (the listing), not both.")
        shown = show(ws, args["id"])  # its refusals (NOT_FOUND, pruned) and its diff, as /changes ID
        row = ws.journal.get(args["id"])
        assert row is not None
        return {**_row(ws, row), "diff": shown.content or ""}
    rows = ws.history(args.get("limit", DEFAULT_LIMIT)) if ws.state.has_journal() else []
    listed = []
    with ws.state.thread_lock:  # the journal's one connection: threads take turns
        for row in rows:
            files = [{"file_path": json_name(f.path), "lines": counts(ws, f)} for f in ws.journal.files(row.id)]
            tree = [{"path": json_name(op.path), "kind": op.kind, "action": op.action}
                    for op in ws.journal.tree(row.id)]
            listed.append({**_row(ws, row), "files": files, "tree": tree})
    depth = ws.journal_depth()
    return {"changes": listed, "kept": depth.changes if depth is not None else 0}


def _outcome(outcome: RevertOutcome) -> dict[str, Any]:
    from stringsh.documents.revertreply import outcome_parts

    return {"change_id": outcome.change_id, "reverted": outcome.reverted_id,
            "files": [{"file_path": json_name(f.rel), "action": f.action, "lines": f.lines} for f in outcome.files],
            "summary": "; ".join(outcome_parts(outcome))}


def _change_id(value: int) -> int:
    """The id as `/changes ID` and `/revert ID` take it: one too large for the journal is `Not a change id`, as
    there, not an overflow."""
    from stringsh.documents.revertreply import parse_id

    return parse_id(str(value))


def revert(ws: Workspace, args: dict[str, Any], topic: str) -> dict[str, Any]:
    return _outcome(ws.revert(_change_id(args["id"]), topic=topic, undoable=True))


def undo(ws: Workspace, args: dict[str, Any], topic: str) -> dict[str, Any]:
    if args.get("skip", False):
        skipped = ws.undo_skip(topic)
        return {"skipped": skipped.change_id, "paths": list(skipped.paths), "next": skipped.next_id}
    return _outcome(ws.undo(topic))
