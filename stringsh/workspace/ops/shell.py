"""shell: the topic's persistent bash and one-shot `bash -c`, behind the `shell` permission and the audit log.

One audit record per command, with its outcome (`ok`, `EXIT_<n>`, `TIMEOUT`, an error code or
`INTERNAL_ERROR:<type>`) and the command's first line with secrets masked (audit.summarize_command), never its
later lines (a heredoc body is contents) or its output. pexpect loads with the first topic shell only.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from stringsh.errors import NOT_FOUND_HINT, StringError

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace
    from stringsh.workspace.shell.providers import Provider
    from stringsh.workspace.shell.result import ShellResult
    from stringsh.workspace.shell.session import ShellSession
    from stringsh.workspace.shell.settings import ShellSettings


class ShellRequest(NamedTuple):
    """`timeout` in seconds overrides the policy's for this command; `variables` are exported (valid names);
    `workdir` is the folder of the workspace root's tree it runs in (String's /exec: the open document's)."""

    command: str
    topic: str
    timeout: float | None = None
    variables: Mapping[str, str] = MappingProxyType({})
    workdir: str = "."


class ShellSlot(Protocol):
    """Where a topic keeps its shell between commands (a `Session`): None before the first one. `shell_lock` is
    held while the shell is made or started, never while a command runs; `ended`: the topic is gone, no shell may
    start for it any more."""

    bash: Any
    shell_lock: threading.Lock
    ended: bool


def shell_settings(ws: Workspace) -> ShellSettings:
    """The policy's shell settings; `NOT_PERMITTED` when the policy turns the shell off."""
    if not ws.policy.permissions.shell:
        raise StringError("NOT_PERMITTED", "shell is disabled by policy", "The policy's [permissions] shell = false.")
    return sandbox_settings(ws)


def sandbox_settings(ws: Workspace) -> ShellSettings:
    """The policy's shell settings with the sandbox chosen (bubblewrap by default where it runs, probed once per
    workspace), whether or not the shell is permitted: git and actions ask too."""
    from stringsh.workspace.shell.settings import settings_from_policy

    return settings_from_policy(ws.policy, ws.state.bwrap_probe)


def folder_path(ws: Workspace, workdir: str) -> Path:
    """`workdir` as the confined folder a one-shot shell starts in: a folder of the workspace root's own tree."""
    rel = ws.relative(workdir)
    if ":" in rel.split("/", 1)[0]:  # another root (`id:rel`): the shell runs in the workspace root's tree
        raise StringError("INVALID_TARGET", f"Not a folder of the workspace root: {workdir}")
    info = ws.stat(rel)
    if info is None:
        raise StringError("NOT_FOUND", f"Directory not found: {workdir}", NOT_FOUND_HINT)
    if not info.is_dir:
        raise StringError("INVALID_TARGET", f"Not a directory: {workdir}")
    return ws.root if info.rel == "." else ws.root / Path(info.rel)


def admit(ws: Workspace, settings: ShellSettings, command: str, cwd: Path | None = None) -> None:
    """The one check every shell entry makes before running `command` (topic shell, bash topics, MCP `bash`,
    /exec, JSON `bash`, CLI actions): unsandboxed, a command naming a secret path is SECRET_DENIED (best effort,
    shell/sandboxing.py); sandboxed, the secret is masked and nothing is refused here."""
    if settings.why_not is None:
        return
    from stringsh.workspace.shell.sandboxing import refuse_named_secret

    refuse_named_secret(command, ws.confiner.matcher, ws.root, cwd, settings.why_not)


def provider(ws: Workspace, settings: ShellSettings) -> Provider:
    """The settings' provider, probing bubblewrap once per workspace; a sandbox masks what the policy denies and
    keeps the policy file in force read-only."""
    from stringsh.workspace.shell.providers import make_provider

    return make_provider(settings.sandbox, settings.writable, ws.state.bwrap_probe,
                         matcher=ws.confiner.matcher, policy_file=ws.policy.source,
                         walk_limit=ws.policy.limits.max_walk_entries, readonly=settings.readonly)


def topic_shell(ws: Workspace, slot: ShellSlot) -> ShellSession:
    """The slot's shell with the policy's settings re-read (so a policy change reaches it), or a new shell,
    kept in the slot, when there is none or its confinement changed (the old one is closed first)."""
    from stringsh.workspace.shell.session import ShellSession

    settings = shell_settings(ws)
    current: ShellSession | None = slot.bash
    confinement = (settings.sandbox, settings.writable, settings.readonly, settings.environment)
    if current is not None and (current.settings.sandbox, current.settings.writable,
                                current.settings.readonly, current.settings.environment) != confinement:
        current.close()
        slot.bash = current = None
    if current is None:
        current = ShellSession(ws.root, settings, spool_dir=ws.state.spool_dir, provider=provider(ws, settings))
        slot.bash = current
    current.settings = settings
    return current


def run_in_topic_shell(ws: Workspace, request: ShellRequest, slot: ShellSlot) -> ShellResult:
    """Run in the topic's shell (kept in `slot`, started on first use); audited as `shell`."""
    with ws.audited("shell", topic=request.topic, command=request.command) as note:
        current: ShellSession | None = slot.bash
        admit(ws, shell_settings(ws), request.command, Path(current.cwd) if current is not None else None)
        with slot.shell_lock:  # a shell warm_topic_shell is starting is waited for, not started twice
            shell = topic_shell(ws, slot)
        result = shell.run(request.command, timeout=request.timeout, variables=request.variables)
        note.outcome = result.code
        return result


def warm_topic_shell(ws: Workspace, slot: ShellSlot) -> None:
    """Start the topic's shell before its first command, so that command does not wait the ~50-130 ms a sandboxed
    shell takes to start (the daemon's and MCP's topics: agents' sessions, which run commands). Nothing happens when
    the topic has a shell or has ended; a shell the policy forbids or that cannot start is left to the first
    command, which says why."""
    with slot.shell_lock:
        if slot.ended or slot.bash is not None:
            return
        try:
            shell = topic_shell(ws, slot)
            shell.start()
        except (StringError, OSError):
            return


def run_once(ws: Workspace, request: ShellRequest) -> ShellResult:
    """One stateless `bash -c` in `request.workdir`; audited as `exec`."""
    from stringsh.workspace.shell.oneshot import run_once as one_shot

    with ws.audited("exec", [request.workdir] if request.workdir != "." else [], topic=request.topic,
                    command=request.command) as note:
        settings = shell_settings(ws)
        cwd = folder_path(ws, request.workdir)
        admit(ws, settings, request.command, cwd)
        result = one_shot(
            request.command,
            ws.root,
            settings,
            variables=request.variables,
            timeout=request.timeout,
            spool_dir=ws.state.spool_dir,
            provider=provider(ws, settings),
            cwd=cwd,
        )
        note.outcome = result.code
        return result
