"""An action's command line run as a page runs it: through the engine (`Workspace.run_action`), then worded as its
reply (`actions.cli.cli_run`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from stringsh.actions.cli import CliRun, cli_run
from stringsh.workspace import ActionRequest, Policy, Workspace


def run_bash(script: str, cwd: Path, *, args: Sequence[str] = (), env: Mapping[str, str] | None = None,
             timeout: float | None = None, cap: int = 50 * 1024, root: Path | None = None) -> CliRun:
    """`script` run in `cwd`, in a workspace at `root` (`cwd` when not given) with the policy's shell timeout set
    to `timeout`; the reply's output cut to `cap` characters."""
    folder = (root or cwd).resolve()
    policy = Policy.default(folder)
    if timeout is not None:
        policy = policy._replace(shell=policy.shell._replace(timeout=timeout))
    workspace = Workspace(folder, policy)
    try:
        raw = workspace.run_action(ActionRequest(script, list(args), cwd, dict(env or {}), "act.test"))
    finally:
        workspace.close()
    return cli_run(raw, cwd, cap=cap)
