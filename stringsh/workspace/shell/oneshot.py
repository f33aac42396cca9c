"""One stateless `bash -c` in the workspace (`/exec`): same cleaning, cap, timeout and reply as the session.

stdout and stderr are merged into one pipe and cleaned for a reader; the run itself (deadline, group kill,
nothing outliving it) is runner.py's. Leftover output is read only until it goes quiet for SETTLE seconds.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from stringsh.workspace.paths import spool_folder
from stringsh.workspace.shell.capture import OutputCapture
from stringsh.workspace.shell.clean import StreamCleaner
from stringsh.workspace.shell.privatetmp import UNTIL_COMMAND
from stringsh.workspace.shell.providers import Provider, ensure_state_dir, make_provider, one_shot_tmp
from stringsh.workspace.shell.result import ShellResult, base_env
from stringsh.workspace.shell.runner import BashCall, check_command, execute, workspace_base
from stringsh.workspace.shell.settings import ShellSettings
from stringsh.workspace.shell.watch import add_notes

#: Once bash has returned, how long quiet output may take before the pipe is given up (background writers).
SETTLE = 0.05


def run_once(
    command: str,
    root: str | os.PathLike[str],
    settings: ShellSettings | None = None,
    *,
    variables: Mapping[str, str] | None = None,
    timeout: float | None = None,
    spool_dir: str | os.PathLike[str] | None = None,
    provider: Provider | None = None,
    cwd: Path | None = None,
) -> ShellResult:
    """Run `bash -c command` in `cwd` (a folder inside `root`, confined by the caller; None: `root`); SIGTERM then
    SIGKILL to its group at the deadline."""
    check_command(command)
    settings = settings or ShellSettings()
    provider = provider or make_provider(settings.sandbox, settings.writable)
    base = Path(root).resolve()
    spool = Path(spool_dir) if spool_dir is not None else spool_folder(base)
    workspace_base(base)
    ensure_state_dir(base)
    watch = provider.watch(base)
    capture = OutputCapture(settings.output_cap, spool)
    cleaner = StreamCleaner()
    limit = settings.timeout if timeout is None else timeout
    with one_shot_tmp(provider, base) as tmp:
        call = BashCall(command, base, base_env(variables, settings.environment), limit, settings.kill_grace,
                        wrap=lambda argv: provider.wrap(argv, base, tmp=tmp), settle=SETTLE,
                        workdir=cwd if cwd is not None and cwd != base else None,  # a sandbox starts in `root`
                        reaped=not provider.ends_with_stringsh)
        ended = execute(call, lambda data: capture.write(cleaner.feed(data)))
        capture.write(cleaner.finish())
        result = ShellResult(ended.status, str(cwd or base), capture.text(), ended.timed_out, limit)
        notes = provider.notes(base, result.output, tmp, UNTIL_COMMAND)
    return add_notes(result, [*(watch.check() if watch is not None else []), *notes])
