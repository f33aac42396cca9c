"""action run: a page action's command line as one engine operation.

A CLI action is a shell command the page's author wrote, filled with the caller's values as positional parameters
(actions/cli.py builds the script; it never runs it). Everything that decides whether and how it runs is here, in
one place for every front end: the `[permissions] shell` check, the audit record (its exit code as the outcome),
the policy's sandbox (or, where the shell is not sandboxed, the best-effort refusal of a command naming a secret
path, values included), the watch for protected paths the command creates, and the one process runner with the
shell's kill rule (shell/runner.py). What comes back is the raw run; the caller words the reply.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from stringsh.workspace.ops.shell import admit, provider, shell_settings

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace

#: `$0` of an action's bash, which its own error messages start with (`bash: line 1: …`), as `!cmd`'s do.
ARGV0 = "bash"
#: Seconds between SIGTERM and SIGKILL to a timed-out action's process group.
KILL_GRACE = 5.0
#: What every action's bash gets whatever the caller's environment says: no pager, no editor, a dumb terminal.
QUIET_ENV = {"TERM": "dumb", "PAGER": "cat", "GIT_PAGER": "cat", "GIT_EDITOR": ":"}


class ActionRequest(NamedTuple):
    """`script` runs as `bash -c SCRIPT bash ARG…` in `cwd` (a folder of the workspace), with `env` over what
    the policy passes of the process's own (shell/environment.py). `summary` is the audit record's command line
    (values masked by the caller), `paths` the page it came from. `separate` keeps stdout and stderr apart (a
    response template reads each)."""

    script: str
    args: Sequence[str]
    cwd: Path
    env: Mapping[str, str]
    summary: str
    paths: Sequence[str] = ()
    separate: bool = False
    topic: str | None = None


class ActionRun(NamedTuple):
    """The raw run: exit status, whether the timeout killed it, its output (stdout and stderr merged in `out`
    unless the request kept them apart), the sandbox's notes (protected paths it removed) and the timeout."""

    status: int
    timed_out: bool
    out: bytes
    err: bytes
    notes: list[str]
    timeout: float


def run_action(ws: Workspace, request: ActionRequest) -> ActionRun:
    """Run the action's command under the policy, recorded in the audit log whether refused, failed or run."""
    from stringsh.workspace.shell.environment import passed
    from stringsh.workspace.shell.runner import BashCall, execute

    with ws.audited("action", list(request.paths), topic=request.topic, command=request.summary) as note:
        settings = shell_settings(ws)  # a CLI action is a shell command: `[permissions] shell` governs it
        command = f"cd {shlex.quote(str(request.cwd))} && {request.script}"
        values = list(request.args)
        # the values are the script's `$1`…: a value naming a secret path is as much the command's as a word of it
        admit(ws, settings, " ".join([command, *map(shlex.quote, values)]))
        sandbox = provider(ws, settings) if settings.sandbox != "none" else None
        root = ws.root

        def wrap(argv: list[str]) -> list[str]:
            """The runner's argv ends with `-c SCRIPT`: `$0` and the values follow it, before the sandbox wraps it."""
            argv = [*argv, ARGV0, *values]
            return sandbox.wrap(argv, root) if sandbox is not None else argv

        watch = sandbox.watch(root) if sandbox is not None else None
        timeout = float(ws.policy.shell.timeout)
        env = {**passed(settings.environment), **QUIET_ENV, **request.env}  # the shell's environment rule
        out: list[bytes] = []
        err: list[bytes] = []
        reaped = sandbox is None or not sandbox.ends_with_stringsh
        ended = execute(BashCall(command, request.cwd, env, timeout, KILL_GRACE, wrap=wrap, bash="bash",
                                 reaped=reaped), out.append, err.append if request.separate else None)
        notes = watch.check() if watch is not None else []
        note.outcome = None if ended.status == 0 else f"EXIT_{ended.status}"
    return ActionRun(ended.status, ended.timed_out, b"".join(out), b"".join(err), notes, timeout)
