"""The checks every edit body passes before anything is planned, in every dialect: a body never writes a shown
mask back over the secret it hides, and never empties a part unasked. Below the documents layer, so the dialects
that have no document (OPERATOR_CMD, the JSON tools) run the same rule and wording."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stringsh.errors import StringError

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace


def refuse_mask_writeback(workspace: Workspace, label: str, current: str, body: str) -> None:
    """INVALID_PAYLOAD when `body` (replacing `current`) holds more masks than `current` does while `current`
    holds a secret: the extra masks stand where secrets were shown masked."""
    mask = workspace.policy.secrets.replacement
    if body.count(mask) <= current.count(mask) or not workspace.redactor.finds_secret(current):
        return
    raise StringError(
        "INVALID_PAYLOAD",
        f"Refusing to write {label}: the body contains {mask} where the file holds a secret; nothing was written.",
        "stringsh shows secrets masked. Rewrite those lines in full with their real text, "
        "or edit that part outside stringsh.",
    )


def refuse_empty(body: str, label: str, force: bool) -> None:
    """An empty body would silently empty the block: only with --force."""
    if not force and not body.strip():
        raise StringError(
            "INVALID_PAYLOAD",
            f"Refusing to empty {label}: the body is empty.",
            f"To empty it on purpose, send the empty body again with --force: /edit --force {label}. "
            "Nothing was written.",
        )
