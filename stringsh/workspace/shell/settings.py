"""Shell settings: timeout, output cap, sandbox; read from the workspace policy when it carries them."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from stringsh.errors import StringError

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


def settings_from_policy(policy: Any) -> ShellSettings:
    """Read `policy.shell` (timeout, output_cap, sandbox as "none"/"bubblewrap" or a bool, kill_grace)."""
    shell = getattr(policy, "shell", None)
    defaults = ShellSettings()
    sandbox = getattr(shell, "sandbox", defaults.sandbox) if shell is not None else defaults.sandbox
    if isinstance(sandbox, bool):
        sandbox = "bubblewrap" if sandbox else "none"
    elif sandbox in (None, "", "off", "false"):
        sandbox = "none"
    elif sandbox in ("on", "true", "bwrap"):
        sandbox = "bubblewrap"
    roots = getattr(policy, "roots", None)
    writable = None if roots is None else tuple(str(r.path) for r in roots if getattr(r, "mode", "") == "read_write")
    return ShellSettings(
        writable=writable,
        timeout=float(getattr(shell, "timeout", defaults.timeout)),
        output_cap=int(getattr(shell, "output_cap", defaults.output_cap)),
        sandbox=str(sandbox),
        kill_grace=float(getattr(shell, "kill_grace", defaults.kill_grace)),
    )
