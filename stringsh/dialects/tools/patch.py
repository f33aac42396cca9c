"""`apply_patch`: Codex's patch format (`*** Begin Patch` … `*** End Patch`, in `input` as Codex's own tool takes it),
applied as /patch applies it (workspace/codexpatch.py): exact chunks, every file or none, one change set to undo."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from stringsh.dialects.tools.schema import Field
from stringsh.workspace import named_paths, patched_line

if TYPE_CHECKING:
    from stringsh.workspace import Workspace

FIELDS = (Field("input", "string", required=True),)
ABOUT = ("apply a patch in Codex's apply_patch format ('*** Begin Patch', '*** Update File: path', '@@' chunks, "
         "'*** End Patch'): every file or none, one undoable change")


def summary(args: dict[str, Any]) -> tuple[list[str], str | None]:
    return named_paths(str(args.get("input", ""))), None


def apply_patch(ws: Workspace, args: dict[str, Any], topic: str) -> dict[str, Any]:
    change_id, parts = ws.apply_codex(args["input"], topic=topic)
    return {"success": True, "change_id": int(change_id), "summary": patched_line(parts)}
