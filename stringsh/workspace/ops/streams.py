"""exec_streams: one `bash -c` with stdout and stderr apart (shell/streams.py), behind the `shell` permission, the
policy's sandbox and the audit log (recorded as `exec`, like /exec: outcome `ok`, `EXIT_<n>` or `TIMEOUT`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from stringsh.errors import StringError

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace
    from stringsh.workspace.shell.streams import StreamsResult


class StreamsRequest(NamedTuple):
    """`workdir`: a folder in the workspace (any path the engine accepts); `timeout` in seconds (None: the
    policy's); `cap`: bytes kept of each stream."""

    command: str
    topic: str
    workdir: str = "."
    timeout: float | None = None
    cap: int = 50 * 1024


def exec_streams(ws: Workspace, request: StreamsRequest) -> StreamsResult:
    from stringsh.workspace.ops.shell import admit, provider, shell_settings
    from stringsh.workspace.shell.streams import run_streams

    with ws.audited("exec", [request.workdir] if request.workdir != "." else [], topic=request.topic,
                    command=request.command) as note:
        settings = shell_settings(ws)
        rel = ws.relative(request.workdir)
        if ":" in rel.split("/", 1)[0]:  # another root (`id:rel`): the shell runs in the workspace root's tree
            raise StringError("INVALID_TARGET", f"Not a folder of the workspace root: {request.workdir}")
        info = ws.stat(rel)
        if info is None:
            raise StringError("NOT_FOUND", f"Directory not found: {request.workdir}")
        if not info.is_dir:
            raise StringError("INVALID_TARGET", f"Not a directory: {request.workdir}")
        cwd = ws.root if info.rel == "." else ws.root / Path(info.rel)
        admit(ws, settings, request.command, cwd)
        result = run_streams(request.command, ws.root, settings, provider(ws, settings), cwd=cwd,
                             timeout=request.timeout, cap=request.cap)
        note.outcome = "TIMEOUT" if result.timed_out else None if result.exit_code == 0 else f"EXIT_{result.exit_code}"
        return result
