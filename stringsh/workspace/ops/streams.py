"""exec_streams: one `bash -c` with stdout and stderr apart (shell/streams.py), behind the `shell` permission, the
policy's sandbox and the audit log (recorded as `exec`, like /exec: outcome `ok`, `EXIT_<n>` or `TIMEOUT`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

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
    from stringsh.workspace.ops.shell import admit, folder_path, provider, shell_settings
    from stringsh.workspace.shell.streams import run_streams

    with ws.audited("exec", [request.workdir] if request.workdir != "." else [], topic=request.topic,
                    command=request.command) as note:
        settings = shell_settings(ws)
        cwd = folder_path(ws, request.workdir)
        admit(ws, settings, request.command, cwd)
        result = run_streams(request.command, ws.root, settings, provider(ws, settings), cwd=cwd,
                             timeout=request.timeout, cap=request.cap)
        note.outcome = "TIMEOUT" if result.timed_out else None if result.exit_code == 0 else f"EXIT_{result.exit_code}"
        return result
