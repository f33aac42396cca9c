"""shell: the topic's persistent bash and one-shot `bash -c`, behind the `shell` permission and the audit log.

One audit record per command, with its outcome (`ok`, `EXIT_<n>`, `TIMEOUT`, an error code or
`INTERNAL_ERROR:<type>`) and the command's first line with secrets masked (audit.summarize_command), never its
later lines (a heredoc body is contents) or its output. pexpect loads with the first topic shell only.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from stringsh.errors import StringError

if TYPE_CHECKING:
    from stringsh.workspace.engine import Workspace
    from stringsh.workspace.shell.providers import Provider
    from stringsh.workspace.shell.result import ShellResult
    from stringsh.workspace.shell.session import ShellSession
    from stringsh.workspace.shell.settings import ShellSettings


class ShellRequest(NamedTuple):
    """`timeout` in seconds overrides the policy's for this command; `variables` are exported (valid names)."""

    command: str
    topic: str
    timeout: float | None = None
    variables: Mapping[str, str] = MappingProxyType({})


class ShellSlot(Protocol):
    """Where a topic keeps its shell between commands (a `Session`): None before the first one."""

    bash: Any


def shell_settings(ws: Workspace) -> ShellSettings:
    """The policy's shell settings; `NOT_PERMITTED` when the policy turns the shell off."""
    if not ws.policy.permissions.shell:
        raise StringError("NOT_PERMITTED", "shell is disabled by policy", "The policy's [permissions] shell = false.")
    from stringsh.workspace.shell.settings import settings_from_policy

    return settings_from_policy(ws.policy)


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
    confinement = (settings.sandbox, settings.writable, settings.readonly)
    if current is not None and (current.settings.sandbox, current.settings.writable,
                                current.settings.readonly) != confinement:
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
        shell = topic_shell(ws, slot)
        result = shell.run(request.command, timeout=request.timeout, variables=request.variables)
        note.outcome = result.code
        return result


def run_once(ws: Workspace, request: ShellRequest) -> ShellResult:
    """One stateless `bash -c` in the workspace root; audited as `exec`."""
    from stringsh.workspace.shell.oneshot import run_once as one_shot

    with ws.audited("exec", topic=request.topic, command=request.command) as note:
        settings = shell_settings(ws)
        result = one_shot(
            request.command,
            ws.root,
            settings,
            variables=request.variables,
            timeout=request.timeout,
            spool_dir=ws.state.spool_dir,
            provider=provider(ws, settings),
        )
        note.outcome = result.code
        return result
