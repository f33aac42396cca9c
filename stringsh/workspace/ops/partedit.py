"""The part edit, built once: a block, a symbol or a line range of a file replaced by a body, held against the
part's own text rather than the whole file's hash (guards.PartText).

The engine cannot parse markdown or source code (the indexers live above it), so the caller passes how to find
its part: `locate`, called under the workspace lock on the file as it is, returns the part there (its text, the
lines a CONFLICT shows, and how to splice a body in, the caller's own checks of the result included) or None when
the part is gone. Then, once, here: the part's text checked against the guard (CONFLICT showing it now), the body
checked (a mask written back over a secret, an empty body unasked), the splice made, encoded in the file's
encoding and applied as one journalled change (inplace.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Literal, NamedTuple

from stringsh.errors import Step
from stringsh.workspace.guards import (
    NO_GUARD,
    PartText,
    WholeFile,
    block_changed,
    block_gone,
    lines_changed,
    refuse_empty,
    refuse_mask_writeback,
    refuse_numbered,
)
from stringsh.workspace.ops.inplace import Rewritten, rewrite

if TYPE_CHECKING:
    from stringsh.errors import StringError
    from stringsh.workspace.engine import Workspace
    from stringsh.workspace.guards import Guard
    from stringsh.workspace.ops.read import TextFile


class Located(NamedTuple):
    """A part as found in the file under the lock."""

    text: str  # its own text: what a PartText guard is compared with, and what the body replaces
    shown: str  # what a CONFLICT shows of it (masked there)
    splice: Callable[[str], str]  # the file's new text with the body in place of the part, checked by the caller


#: Finds the part in the file as it is: None when it is no longer there.
Locate = Callable[["TextFile"], Located | None]
#: What the part is, for the CONFLICTs' wording: a block or symbol, or a line range (then `edit` is the command
#: that shows current line numbers).
Kind = Literal["block", "lines"]


class PartEditRequest(NamedTuple):
    path: str
    label: str  # the part as replies name it: `path#block`, `path:L5-L7`
    locate: Locate
    body: str  # what replaces the part, as `splice` takes it
    guard: Guard
    topic: str = "main"
    kind: Kind = "block"
    #: Whether an empty body may empty the part (`--force`; a line range may always be removed).
    empty_ok: bool = False
    #: For a line range's CONFLICT: the step that shows current line numbers (default: the file's numbered view).
    edit: Step | None = None


def _numbers(request: PartEditRequest) -> Step:
    return request.edit or Step("view", target=request.path)


def edit_part(ws: Workspace, request: PartEditRequest) -> Rewritten:
    """One journalled change of the part; see the module docstring. Needs `write` and `edit`."""
    label, guard = request.label, request.guard
    refuse_empty(request.body, label, request.empty_ok)
    refuse_numbered(request.body, label)

    def change(current: TextFile) -> str:
        part = request.locate(current)
        if part is None:
            raise _gone(ws, request, current.rel)
        if isinstance(guard, PartText) and part.text != guard.text:
            raise _changed(ws, request, part.shown)
        refuse_mask_writeback(ws, label, part.text, request.body)
        return part.splice(request.body)

    # audited as before: a line range as "edit", a block or symbol as "apply"
    return rewrite(ws, request.path, request.topic, "apply" if request.kind == "block" else "edit",
                   guard if isinstance(guard, WholeFile) else NO_GUARD, change, body_checked=True)


def _gone(ws: Workspace, request: PartEditRequest, rel: str) -> StringError:
    """The part is not in the file any more (a line range past its end shows nothing)."""
    if request.kind == "lines":
        return lines_changed(ws, request.label, "", _numbers(request))
    return block_gone(request.label, rel)


def _changed(ws: Workspace, request: PartEditRequest, shown: str) -> StringError:
    if request.kind == "lines":
        return lines_changed(ws, request.label, shown, _numbers(request))
    return block_changed(ws, request.label, shown)

