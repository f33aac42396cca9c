"""One stateless `bash -c` with stdout and stderr kept apart and byte-exact (the JSON tools' `bash`).

`/exec` (oneshot.py) merges both streams and cleans the text for a reader; an agent's tool call wants each stream
as the command wrote it, the first `cap` bytes of each kept and the totals counted. The run itself (provider,
deadline, group kill, nothing outliving the call) is runner.py's, as for `/exec`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from stringsh.workspace.shell.privatetmp import UNTIL_COMMAND
from stringsh.workspace.shell.providers import Provider, ensure_state_dir, one_shot_tmp
from stringsh.workspace.shell.result import TIMEOUT_STATUS, base_env
from stringsh.workspace.shell.runner import BashCall, Stream, check_command, execute, workspace_base
from stringsh.workspace.shell.settings import ShellSettings

__all__ = ["Stream", "StreamsResult", "run_streams"]


@dataclass
class StreamsResult:
    """`exit_code` is TIMEOUT_STATUS (124) for every provider when the deadline stopped the command."""

    stdout: Stream
    stderr: Stream
    exit_code: int
    timed_out: bool
    duration_ms: int
    notes: list[str]


def run_streams(command: str, root: Path, settings: ShellSettings, provider: Provider, *, cwd: Path | None = None,
                timeout: float | None = None, cap: int = 50 * 1024,
                variables: Mapping[str, str] | None = None) -> StreamsResult:
    """Run `bash -c command` in `cwd` (a folder inside `root`, already confined by the caller)."""
    check_command(command)
    base = workspace_base(root)
    ensure_state_dir(base)
    watch = provider.watch(base)
    out, err = Stream(cap), Stream(cap)
    limit = settings.timeout if timeout is None else timeout
    with one_shot_tmp(provider, base) as tmp:
        call = BashCall(command, base, base_env(variables, settings.environment), limit, settings.kill_grace,
                        wrap=lambda argv: provider.wrap(argv, base, tmp=tmp),
                        workdir=cwd if cwd is not None and cwd != base else None,  # bwrap starts in `root`
                        reaped=not provider.ends_with_stringsh)
        ended = execute(call, out.add, err.add)
        said = bytes(err.data).decode("utf-8", "replace")  # where a failure names what the sandbox hides
        notes = [*(watch.check() if watch is not None else []), *provider.notes(base, said, tmp, UNTIL_COMMAND)]
    status = TIMEOUT_STATUS if ended.timed_out else ended.status
    return StreamsResult(out, err, status, ended.timed_out, ended.duration_ms, notes)
