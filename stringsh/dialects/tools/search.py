"""`glob` and `grep`: the engine's confined walk (no secrets, no `.git/`, no `.stringsh/`, ignored files left out).

`glob` lists matches newest first (by modification time, as the interface asks: the engine's `sort="mtime"`), `grep`
matches a Python regular expression line by line (the interface's `grep -E`; `include` filters file names like
`--include`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from stringsh.dialects.tools.paths import engine_path
from stringsh.dialects.tools.schema import Field

if TYPE_CHECKING:
    from stringsh.workspace import Workspace

GLOB_FIELDS = (Field("pattern", "string", required=True), Field("path", "string"))
GREP_FIELDS = (Field("pattern", "string", required=True), Field("path", "string"), Field("include", "string"))


def summary(args: dict[str, Any]) -> tuple[list[str], str | None]:
    include = f" include={args['include']}" if "include" in args else ""
    return [args["path"]] if "path" in args else [], f"{args.get('pattern', '')}{include}"


def glob(ws: Workspace, args: dict[str, Any], topic: str) -> dict[str, Any]:
    found = ws.glob(args["pattern"], engine_path(args.get("path", "."), "path"), topic=topic, sort="mtime")
    matches = [match.rel for match in found.matches]
    result: dict[str, Any] = {"matches": matches, "count": len(matches)}
    if found.truncated:
        result["truncated"] = True
        result["total"] = found.total
    return result


def grep(ws: Workspace, args: dict[str, Any], topic: str) -> dict[str, Any]:
    found = ws.grep(args["pattern"], engine_path(args.get("path", "."), "path"), regex=True,
                    glob=args.get("include"), topic=topic)
    matches = [{"file_path": line.path, "line_number": line.line, "line": line.text}
               for line in found.lines if line.match]
    result: dict[str, Any] = {"matches": matches}
    if found.truncated:
        result["truncated"] = True
    return result
