"""Every dialect's symbol edit, below the documents layer so OPERATOR_CMD reaches it too: the checked new text
(the symbol resolved; a body that would write a masked secret back, or an empty one, refused as `/edit` refuses
them; then render/code/splice.py's parse checks) and one journaled write guarded by the hash the file was read as.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from stringsh.errors import StringError
from stringsh.render.code.splice import Spliced, checked_insert, checked_replace
from stringsh.render.code.views import resolve_symbol
from stringsh.workspace import ChangeSet
from stringsh.workspace.textio import encode

if TYPE_CHECKING:
    from stringsh.render.code.index import SymbolIndex
    from stringsh.workspace.engine import Workspace

BEFORE = "--before"
AFTER = "--after"


def plan_edit(workspace: Workspace, path: str, text: str, index: SymbolIndex, block_id: str, body: str,
              force: bool, where: str | None) -> Spliced:
    """The checked new text of a symbol edit (every dialect's): the symbol resolved, a body that would write a
    masked secret back or empty it refused, then the parse checks of render/code/splice.py."""
    symbol = resolve_symbol(index, path, block_id)
    label = f"{path}#{block_id}"
    data = text.encode("utf-8", "surrogatepass")
    current = data[symbol.start_byte : symbol.end_byte].decode("utf-8", "surrogatepass")
    _refuse_masked(workspace, label, current, body)
    if not force and not body.strip():
        raise StringError(
            "INVALID_PAYLOAD",
            f"Refusing to empty {label}: the body is empty.",
            f"To empty it on purpose, send the empty body again with --force: /edit --force {label}. "
            "Nothing was written.",
        )
    force_hint = f"/edit --force {label}" + (f" {where}" if where else "")
    if where is None:
        return checked_replace(text, index, symbol, body, label, force, force_hint)
    return checked_insert(text, index, symbol, body, where == AFTER, label, force, force_hint)


def write_spliced(workspace: Workspace, path: str, spliced: Spliced, encoding: str, bom: bool, expected: str,
                  topic: str | None) -> tuple[int | None, str]:
    """(change id, new sha256): one journaled write of the new text, encoded as the file was read and guarded by
    the hash it was read as (a change since is a CONFLICT)."""
    data = encode(spliced.text, encoding, bom, path)
    change = ChangeSet().write(path, data, expected_prev_sha256=expected)
    change_id = workspace.apply(change, topic=topic, op="edit")
    return change_id, hashlib.sha256(data).hexdigest()


def _refuse_masked(workspace: Workspace, label: str, current: str, body: str) -> None:
    """A body holding more masks than the symbol while the symbol holds a secret would write the mask over it
    (documents/masking.py's rule and wording, for the dialects below the documents layer)."""
    mask = workspace.policy.secrets.replacement
    if body.count(mask) <= current.count(mask) or not workspace.redactor.finds_secret(current):
        return
    raise StringError(
        "INVALID_PAYLOAD",
        f"Refusing to write {label}: the body contains {mask} where the file holds a secret; nothing was written.",
        "stringsh shows secrets masked. Rewrite those lines in full with their real text, "
        "or edit that part outside stringsh.",
    )
