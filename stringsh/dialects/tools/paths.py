"""The JSON tools' paths: their examples name files as `/workspace/...`, the workspace as the agent's container sees it.

`/workspace` and `/workspace/<rel>` map to the workspace root and `<rel>` in it; every other path goes to the engine
as given (relative to the root, or absolute inside it), which confines it: `../x` and `/etc/passwd` are refused
there. Result paths are root-relative, so a path a result names can be sent back as it is.
"""

from __future__ import annotations

from stringsh.dialects.tools.schema import args_error

#: The workspace as the tools' container mounts it (docs/json-tools.md).
MOUNT = "/workspace"


def engine_path(path: str, field: str = "file_path") -> str:
    """The path the engine takes for an argument; an empty one is refused here, the rest by the engine."""
    if not path:
        raise args_error(f"{field!r} must not be empty.")
    if path == MOUNT or path == MOUNT + "/":
        return "."
    if path.startswith(MOUNT + "/"):
        return path[len(MOUNT) + 1 :] or "."
    return path
