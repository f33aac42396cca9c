"""`bash`: one stateless `bash -c` through the engine (`Workspace.exec_streams`: the `shell` permission, the
policy's sandbox, the audit log). A non-zero exit is a result; a timeout is an error carrying the partial output."""

from __future__ import annotations

import codecs
from typing import TYPE_CHECKING, Any

from stringsh.dialects.tools.paths import engine_path
from stringsh.dialects.tools.protocol import ToolError
from stringsh.dialects.tools.schema import Field, args_error

if TYPE_CHECKING:
    from stringsh.workspace import Stream, StreamsResult, Workspace

#: Bytes of stdout (and of stderr) returned; the rest is counted (the interface asks for 50 KB).
OUTPUT_CAP = 50 * 1024
#: The longest `timeout_ms` taken (one hour); without one, the policy's shell timeout (120 s by default).
MAX_TIMEOUT_MS = 3_600_000

FIELDS = (
    Field("command", "string", required=True),
    Field("workdir", "string"),
    Field("timeout_ms", "integer", minimum=1, maximum=MAX_TIMEOUT_MS),
)


def summary(args: dict[str, Any]) -> tuple[list[str], str | None]:
    return [args["workdir"]] if "workdir" in args else [], str(args.get("command", ""))


def run(ws: Workspace, args: dict[str, Any], topic: str) -> dict[str, Any]:
    from stringsh.workspace import StreamsRequest

    command: str = args["command"]
    if not command.strip():
        raise args_error("bash: 'command' must not be empty.")
    workdir = engine_path(args.get("workdir", "."), "workdir")
    timeout_ms = args.get("timeout_ms")
    timeout = None if timeout_ms is None else timeout_ms / 1000
    done = ws.exec_streams(StreamsRequest(command, topic, workdir, timeout, OUTPUT_CAP))
    result = _result(ws, done)
    if done.timed_out:
        limit = timeout_ms if timeout_ms is not None else round(ws.policy.shell.timeout * 1000)
        raise ToolError("TIMEOUT", f"command timed out after {limit} ms", result,
                        "It was stopped (SIGTERM, then SIGKILL 5 s later); partial output is in result.")
    return result


def _result(ws: Workspace, done: StreamsResult) -> dict[str, Any]:
    stderr = _text(ws, done.stderr)
    if done.notes:  # what the sandbox removed after the command (a planted hook): said where errors go
        stderr += "".join(f"{note}\n" for note in done.notes)
    result: dict[str, Any] = {"stdout": _text(ws, done.stdout), "stderr": stderr, "exit_code": done.exit_code,
                              "duration_ms": done.duration_ms,
                              "truncated": done.stdout.truncated or done.stderr.truncated}
    if result["truncated"]:
        result["stdout_total_bytes"] = done.stdout.total
        result["stderr_total_bytes"] = done.stderr.total
    return result


def _text(ws: Workspace, stream: Stream) -> str:
    """The kept bytes as text (a character cut at the cap left out, invalid UTF-8 replaced), secrets masked."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    return ws.redact_lines(decoder.decode(bytes(stream.data), final=not stream.truncated))
