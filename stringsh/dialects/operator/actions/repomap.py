"""fs.map: the repository map (`/map`, documents/repomap.py) as an OPERATOR_CMD action: `path` is the focus (`.`
for none), `budget` the tokens it may take; the walk, masking and refusals are `/map`'s."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.dialects.operator.actions.common import invalid, ok

if TYPE_CHECKING:
    from stringsh.protocol.operator_model import Command, Result
    from stringsh.workspace import Workspace


def fs_map(workspace: Workspace, command: Command, topic: str) -> Result:
    """The most referenced definitions, ranked toward `path`'s source files, within `budget` tokens."""
    from stringsh.documents.repomap import MAX_BUDGET, MIN_BUDGET, repo_map

    given = command.fields.get("budget", "").strip()
    if given and (not given.isdigit() or not MIN_BUDGET <= int(given) <= MAX_BUDGET):
        raise invalid("ERR_INVALID_BUDGET", f"budget must be a whole number from {MIN_BUDGET} to {MAX_BUDGET}.")
    path = command.fields["path"]
    found = repo_map(workspace, ".", [] if path.strip() in (".", "") else [path], int(given) if given else None,
                     topic=topic)
    view = found.view
    head = [f"# map of ./{f' (focus: {path})' if found.collected.focus else ''}",
            f"# symbols: {len(view.shown)} from {view.files} files, ~{view.tokens} tokens (budget {found.budget})",
            f"# ranked: {found.definitions} definitions in {len(found.collected.files)} source files", ""]
    return ok(command, f"Mapped {len(view.shown)} symbols", "\n".join(head + view.lines))
