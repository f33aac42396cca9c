"""Shell settings: timeout, output cap, sandbox; read from the workspace policy when it carries them."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from stringsh.errors import StringError
from stringsh.workspace.envpolicy import DEFAULT_ENVIRONMENT, Environment

if TYPE_CHECKING:
    from stringsh.workspace.policy import Policy
    from stringsh.workspace.shell.providers import BwrapProbe

SANDBOXES = ("none", "bubblewrap")


@dataclass(frozen=True)
class ShellSettings:
    """`kill_grace` is the wait between SIGTERM and SIGKILL (tests shorten it); `writable` lists the folders a
    sandboxed shell may write (the policy's read_write roots), None for the workspace root alone."""

    timeout: float = 120.0
    output_cap: int = 50 * 1024
    sandbox: str = "none"
    kill_grace: float = 5.0
    writable: tuple[str, ...] | None = None
    #: The policy's read_only roots besides the workspace: bound read-only, so a sandbox sees them (even under
    #: its private /tmp) and cannot change them, also where one lies inside a writable root.
    readonly: tuple[str, ...] = ()
    #: Why the shell is not sandboxed (sandboxing.py), None when it is or when the caller chose "none" itself;
    #: an engine shell with a reason refuses commands that name a secret path.
    why_not: str | None = None
    #: Which of stringsh's environment variables the shell gets (`[shell_environment]`, shell/environment.py).
    environment: Environment = DEFAULT_ENVIRONMENT

    def __post_init__(self) -> None:
        if self.sandbox not in SANDBOXES:
            raise StringError(
                "INVALID_PAYLOAD",
                f"Unknown shell sandbox: {self.sandbox!r}",
                f"Use one of: {', '.join(SANDBOXES)}.",
            )
        if not self.timeout > 0 or self.output_cap <= 0 or self.kill_grace < 0:
            raise StringError("INVALID_PAYLOAD", "Shell timeout and output cap must be positive.")

    def with_timeout(self, timeout: float | None) -> ShellSettings:
        return self if timeout is None else replace(self, timeout=timeout)


def settings_from_policy(policy: Policy, probe: BwrapProbe | None = None) -> ShellSettings:
    """The policy's `[shell]` table (timeout, output cap, sandbox on/off); a sandbox may write the read_write
    roots. The sandbox is bubblewrap by default where `probe` finds it works (sandboxing.choose_sandbox)."""
    from stringsh.workspace.shell.sandboxing import choose_sandbox

    shell = policy.shell
    choice = choose_sandbox(policy, probe)
    return ShellSettings(
        writable=tuple(str(r.path) for r in policy.roots if r.mode == "read_write"),
        readonly=tuple(str(r.path) for r in policy.roots[1:] if r.mode != "read_write"),
        timeout=float(shell.timeout),
        output_cap=int(shell.output_cap),
        sandbox=choice.sandbox,
        why_not=choice.why_not,
        environment=policy.environment,
    )
