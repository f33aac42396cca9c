"""A masked view must never be written back as if it were the file.

Views show secrets as the policy's replacement (`Workspace.redact`). A body copied from such a view carries the
mask where the file holds a secret; writing it would replace the secret with the mask. Such a body is refused
(nothing is written) rather than merged: the user rewrites those lines in full, or edits them outside stringsh.
The refusal is the engine's (workspace/guards.py), made inside every write of every dialect; this module words
the note a masked view ends with.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from stringsh.workspace import Workspace


def masked_note(workspace: Workspace) -> str:
    """The line a numbered `/edit` view ends with when it masked something."""
    mask = workspace.policy.secrets.replacement
    return (f"[masked] Secrets are shown as {mask}. A body that keeps {mask} in their place is refused: "
            "rewrite those lines in full.")
