"""What one shell command gave: exit status, cwd and the (capped) clean output, plus notes about the shell."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from stringsh.escapes import shown_name
from stringsh.workspace.envpolicy import DEFAULT_ENVIRONMENT, Environment

#: Exit status when the shell itself had to be killed to end a timed-out command (as `timeout -s KILL`).
KILLED_STATUS = 137
#: Exit status every TIMEOUT reply shows, as `timeout(1)` does; the same for every provider, whichever signal
#: finally stopped the command (the real status is `ShellResult.exit_code`).
TIMEOUT_STATUS = 124
#: Environment names a shell can hold; session variables with other names are not exported.
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

#: Every shell gets these: no pagers, no editors, no colours, no history file.
FIXED_ENV = {
    "TERM": "dumb",
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "GIT_EDITOR": ":",
    "HISTFILE": "/dev/null",
    "NO_COLOR": "1",
}


@dataclass
class ShellResult:
    """`notes` are lines for the start of the reply (a restart); `timed_out` (after `timeout` s) means TIMEOUT."""

    exit_code: int
    cwd: str
    output: str
    timed_out: bool = False
    timeout: float | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def shown_status(self) -> int:
        return TIMEOUT_STATUS if self.timed_out else self.exit_code

    @property
    def ok(self) -> bool:
        return not self.timed_out and self.exit_code == 0

    @property
    def code(self) -> str | None:
        """The reply's error code: None on exit 0, `TIMEOUT` past the deadline, else `EXIT_<status>`."""
        if self.timed_out:
            return "TIMEOUT"
        return None if self.exit_code == 0 else f"EXIT_{self.exit_code}"

    @property
    def content(self) -> str:
        lines = [*self.notes, self.output or "(no output)"]
        if self.timed_out:
            lines.append(f"[timed out after {self.timeout:g} s; the command was stopped]")
        return "\n".join(lines)

    @property
    def message(self) -> str:
        return f"exit: {self.shown_status} | cwd: {shown_name(self.cwd)}"


def exportable(variables: Mapping[str, str] | None) -> dict[str, str]:
    """Session variables a shell can receive: valid names, not starting with `_`, no NUL."""
    return {
        k: v for k, v in (variables or {}).items() if ENV_NAME.match(k) and not k.startswith("_") and "\x00" not in v
    }


def base_env(variables: Mapping[str, str] | None = None, rule: Environment | None = None) -> dict[str, str]:
    """A shell's whole environment: what the policy passes of stringsh's own (environment.py; the default rule
    when None), the session's exported variables, then the fixed settings."""
    from stringsh.workspace.shell.environment import passed

    return {**passed(rule or DEFAULT_ENVIRONMENT), **exportable(variables), **FIXED_ENV}


def status_of(exitstatus: int | None, signalstatus: int | None) -> int:
    """A process's end as a shell would print `$?`."""
    if exitstatus is not None:
        return exitstatus
    return 128 + signalstatus if signalstatus is not None else KILLED_STATUS
