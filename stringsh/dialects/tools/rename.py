"""`rename`: a definition and every reference attributed to it, across files, as one change set (documents/rename.py
plans it and writes it through `Workspace.apply`, as `/rename` does), so the refusals and the journal are its."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from stringsh.dialects.tools.paths import engine_path
from stringsh.dialects.tools.schema import Field

if TYPE_CHECKING:
    from stringsh.workspace import Workspace

FIELDS = (Field("file_path", "string", required=True), Field("symbol", "string", required=True),
          Field("new_name", "string", required=True), Field("dry_run", "boolean"))
ABOUT = ("rename a definition and every reference syntax attributes to it, across files, as one undoable change; "
         "refused with the ambiguous sites listed (dry_run: the diff only)")


def summary(args: dict[str, Any]) -> tuple[list[str], str | None]:
    return [str(args.get("file_path", ""))], f"{args.get('symbol', '')} -> {args.get('new_name', '')}"


def rename(ws: Workspace, args: dict[str, Any], topic: str) -> dict[str, Any]:
    from stringsh.documents.rename import plan_rename, preview, write_rename

    target = f"{engine_path(args['file_path'])}#{args['symbol']}"
    plan = plan_rename(ws, target, args["new_name"], topic=topic)
    result: dict[str, Any] = {"success": True, "sites": plan.sites,
                              "files": [{"file_path": f.rel, "sites": f.sites} for f in plan.files]}
    if args.get("dry_run", False):
        return {**result, "dry_run": True, "diff": preview(ws, plan)}
    result["change_id"] = int(write_rename(ws, plan, topic=topic))
    return result
