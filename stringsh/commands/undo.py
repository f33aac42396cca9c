"""/undo: revert this client's newest change in the topic that is not undone yet; `/undo --skip` passes over one
that cannot be undone. Other clients' changes (processes, daemons, earlier runs) stay in the journal untouched."""

from __future__ import annotations

from stringsh.commands.context import Context
from stringsh.commands.registry import handler
from stringsh.documents import partguard
from stringsh.documents.diffreply import with_diff
from stringsh.documents.revertreply import outcome_parts
from stringsh.errors import StringError
from stringsh.escapes import shown_name
from stringsh.protocol.response import Result
from stringsh.suggest import did_you_mean, with_suggestion
from stringsh.workspace import FileRow, MissingBlob, SkippedChange, decode, mark_seen

USAGE = "Usage: /undo [--skip]"


def describe_skip(skipped: SkippedChange) -> str:
    paths = ", ".join(shown_name(path) for path in skipped.paths[:3]) + (
        f" and {len(skipped.paths) - 3} more" if len(skipped.paths) > 3 else "")
    after = ("the next /undo takes back change " f"{skipped.next_id}." if skipped.next_id is not None
             else "nothing older is left to undo.")
    return f"Undo: skipped change {skipped.change_id} ({paths}), left as it is; {after}"


def known(ctx: Context, rel: str, row: FileRow | None) -> None:
    """The file this topic put back is seen as the undo wrote it (the previous bytes the journal kept, read from
    the journal: no read of the file to audit), and its text is the baseline of the next part edit."""
    workspace = ctx.dispatcher.workspace
    try:
        if row is None or row.prev_sha is None:
            raise MissingBlob("")
        text = decode(workspace.journal.blob(row.prev_sha), rel)[0]
    except (MissingBlob, StringError):  # not text an edit may take: the hash alone
        mark_seen(ctx.session.seen, workspace, rel)
        return
    mark_seen(ctx.session.seen, workspace, rel, row.prev_sha)
    partguard.remember(ctx.session, rel, text)


@handler("undo")
def undo(ctx: Context) -> Result:
    workspace = ctx.dispatcher.workspace
    if ctx.args == ["--skip"]:
        return Result(describe_skip(workspace.undo_skip(ctx.session.topic)))
    if ctx.args:
        unknown = next((a for a in ctx.args if a.startswith("-") and a != "--skip"), None)
        if unknown is not None:
            raise StringError("INVALID_PAYLOAD", f"Unknown flag for /undo: {unknown}",
                              with_suggestion(f"{USAGE}. Repeat /undo to go further back.",
                                              did_you_mean(unknown, ["--skip"])))
        raise StringError("INVALID_PAYLOAD", USAGE, "/undo takes no other arguments; repeat it to go further back.")
    outcome = workspace.undo(ctx.session.topic)
    rows = {row.path: row for row in workspace.journal.files(outcome.reverted_id)}
    for file in outcome.files:
        if file.action in ("deleted", "already_gone"):
            ctx.session.seen.pop(file.rel, None)
        elif file.action == "reverted_part":
            continue  # other clients' lines are in it, unread here: `seen` and the part baseline stay
        else:
            known(ctx, file.rel, rows.get(file.rel))
    return with_diff(ctx, Result("Undo: " + "; ".join(outcome_parts(outcome))), outcome.change_id, undo_note=False)
