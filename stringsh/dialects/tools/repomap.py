"""`map`: the repository map (`/map`, documents/repomap.py) as a JSON tool: the ranked definitions shown within
the budget, each with its location and signature, and the map's text as `/map` lays it out."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from stringsh.dialects.tools.paths import engine_path
from stringsh.dialects.tools.schema import Field

if TYPE_CHECKING:
    from stringsh.workspace import Workspace

FIELDS = (Field("paths", "string[]"), Field("budget", "integer", minimum=64, maximum=1_000_000))
ABOUT = ("the most referenced definitions, ranked by the reference graph (PageRank), within a token budget "
         "(default 1024, 4 characters a token); paths focus the ranking")


def summary(args: dict[str, Any]) -> tuple[list[str], str | None]:
    return [str(path) for path in args.get("paths", [])], f"map --budget {args.get('budget', 1024)}"


def repo_map(ws: Workspace, args: dict[str, Any], topic: str) -> dict[str, Any]:
    from stringsh.documents.repomap import repo_map

    focus = [engine_path(path, "paths") for path in args.get("paths", [])]
    found = repo_map(ws, ".", focus, args.get("budget"), topic=topic)
    view = found.view
    return {"symbols": [{"file_path": r.path, "id": r.definition.id, "kind": r.definition.kind,
                         "line": r.definition.line, "signature": r.definition.signature} for r in view.shown],
            "files": view.files, "tokens": view.tokens, "budget": found.budget, "definitions": found.definitions,
            "source_files": len(found.collected.files), "map": view.text}
